package io.tablestorecdc.flink.source.conformance;

import org.apache.flink.connector.testframe.external.ExternalContextFactory;

/** A fresh table and stream tunnel on the suite's emulator for each test case. */
final class TablestoreCdcSourceExternalContextFactory
        implements ExternalContextFactory<TablestoreCdcSourceExternalContext> {

    private final EmulatorSystem emulator;

    TablestoreCdcSourceExternalContextFactory(EmulatorSystem emulator) {
        this.emulator = emulator;
    }

    @Override
    public TablestoreCdcSourceExternalContext createExternalContext(String testName) {
        return new TablestoreCdcSourceExternalContext(emulator.bed());
    }
}
