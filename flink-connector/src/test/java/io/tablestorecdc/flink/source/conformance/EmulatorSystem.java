package io.tablestorecdc.flink.source.conformance;

import io.tablestorecdc.emulator.testkit.EmulatorBed;
import org.apache.flink.connector.testframe.TestResource;

/**
 * The external system of the conformance suite: one emulator for all of a class's test cases. Its
 * read responses carry 1 to 16 records, so that a channel takes several reads and checkpoints,
 * savepoints and failovers fall inside a channel, between the records of one response.
 */
final class EmulatorSystem implements TestResource {

    private EmulatorBed bed;

    @Override
    public void startUp() {
        bed = EmulatorBed.start();
        bed.emulator().tunnels().varyReadBatchSizes(27, 16);
    }

    @Override
    public void tearDown() {
        if (bed != null) {
            bed.close();
            bed = null;
        }
    }

    EmulatorBed bed() {
        if (bed == null) {
            throw new IllegalStateException("The emulator is not started");
        }
        return bed;
    }

    @Override
    public String toString() {
        return "TablestoreEmulator";
    }
}
