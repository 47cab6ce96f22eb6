package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;

/** Keeps the fake honest: it passes the same contract as the SDK client on the emulator. */
class InMemoryMetaTableClientTest extends MetaTableClientContract {

    @Override
    protected MetaTableClient newClient() {
        return new InMemoryMetaTableClient(false);
    }
}
