package io.tablestorecdc.flink.table.tablestore;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of {@code 'connector' = 'tablestore'} besides the connection and lookup-cache ones. */
@PublicEvolving
public final class TablestoreTableOptions {

    /** Whether lookups run asynchronously, concurrent keys batched into one BatchGetRow. */
    public static final ConfigOption<Boolean> LOOKUP_ASYNC =
            ConfigOptions.key("lookup.async")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Look rows up asynchronously, batching the keys of concurrent lookups"
                                    + " into BatchGetRow requests of at most 100 keys; false looks"
                                    + " each key up on the task thread.");

    private TablestoreTableOptions() {}
}
