package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The release command a refused consumer prints, ready to copy into a shell. */
class OwnershipConflictExceptionTest {

    @Test
    void theCommandNamesTheMetaTableOnlyWhenItIsNotTheDefault() {
        OwnershipConflictException inDefault =
                conflict("/checkpoints/orders", SdkMetaTableClient.DEFAULT_TABLE_NAME);
        OwnershipConflictException inOwn = conflict("job-1", "my meta");

        assertThat(inDefault.withReleaseCommand("orders", "cdc"))
                .hasMessage(
                        "Tunnel x is owned by another consumer; start again after its lease"
                                + " expires, or release its lease at once with the tablestore-cdc"
                                + " command line: bin/tablestore-cdc lease release --table orders"
                                + " --tunnel cdc --consumer /checkpoints/orders (see"
                                + " docs/operations.md).");
        assertThat(inOwn.withReleaseCommand("orders", "to flink").getMessage())
                .endsWith(
                        "--table orders --tunnel 'to flink' --consumer job-1 --meta-table"
                                + " 'my meta' (see docs/operations.md).");
        assertThat(inOwn.withReleaseCommand("orders", "cdc").holder()).contains("job-1");
    }

    @Test
    void aConflictWithoutAHolderStaysAsItIs() {
        OwnershipConflictException changing =
                new OwnershipConflictException("The owner kept changing.");

        assertThat(changing.withReleaseCommand("orders", "cdc")).isSameAs(changing);
        assertThat(changing.holder()).isEmpty();
    }

    private static OwnershipConflictException conflict(String holder, String metaTable) {
        return new OwnershipConflictException(
                "Tunnel x is owned by another consumer; start again after its lease expires, or ",
                holder,
                metaTable);
    }
}
