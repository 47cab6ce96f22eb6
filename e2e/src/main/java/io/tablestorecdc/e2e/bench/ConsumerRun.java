package io.tablestorecdc.e2e.bench;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One drain with what was measured around it: its {@link Measurement}, its 10–90 % window where the
 * consumer sees its records arrive, and the CPU it cost the JVM, split into server and consumer.
 */
record ConsumerRun(Measurement measurement, Optional<CountWindow.Span> window, CpuUse cpu) {

    String consumer() {
        return measurement.consumer();
    }

    OptionalDouble windowRecordsPerSecond() {
        return window.map(w -> OptionalDouble.of(w.recordsPerSecond()))
                .orElse(OptionalDouble.empty());
    }

    OptionalDouble windowServerMicrosPerRecord() {
        return window.map(w -> OptionalDouble.of(w.serverMicrosPerRecord()))
                .orElse(OptionalDouble.empty());
    }

    OptionalDouble windowConsumerMicrosPerRecord() {
        return window.map(w -> OptionalDouble.of(w.consumerMicrosPerRecord()))
                .orElse(OptionalDouble.empty());
    }

    double serverMicrosPerRecord() {
        return cpu.serverMicrosPerRecord(measurement.records());
    }

    double consumerMicrosPerRecord() {
        return cpu.consumerMicrosPerRecord(measurement.records());
    }
}
