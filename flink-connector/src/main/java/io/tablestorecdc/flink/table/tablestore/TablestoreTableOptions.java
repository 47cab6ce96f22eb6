package io.tablestorecdc.flink.table.tablestore;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

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

    /** The data size of one split of a bounded scan. */
    public static final ConfigOption<MemorySize> SCAN_SPLIT_SIZE =
            ConfigOptions.key("scan.split-size")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(64))
                    .withDescription(
                            "About how much data one split of a bounded scan holds: the scan asks"
                                    + " Tablestore (ComputeSplitsBySize) for ranges of this size"
                                    + " and reads each in one reader task. The service treats it"
                                    + " as a hint and cuts ranges on the first primary-key"
                                    + " column, so rows that share its value share a split.");

    private TablestoreTableOptions() {}
}
