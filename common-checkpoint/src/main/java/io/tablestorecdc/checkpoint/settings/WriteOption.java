package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.checkpoint.write.WriteSettings;

/**
 * The write options both engines' {@code tablestore} connectors have, declared once: the same type,
 * default, bounds and description, under each engine's key ({@code sink.*} as Flink's SQL sinks
 * spell their options, {@code write.*} in Spark).
 */
@PublicEvolving
public enum WriteOption {
    MODE(
            "sink.write-mode",
            "write.mode",
            OptionSpec.key("sink.write-mode")
                    .enumType(WriteMode.class)
                    .defaultValue(WriteMode.PUT.toString())
                    .description(
                            "`put`: a row replaces the stored row, its null columns absent;"
                                    + " `update`: only the row's columns change, a null column is"
                                    + " deleted, other stored columns stay. Rows carrying the"
                                    + " `tablestore-cdc` source's `_op` column are applied as the"
                                    + " change they were, in either mode.")),
    IGNORE_DELETE(
            "sink.ignore-delete",
            "write.ignore.delete",
            OptionSpec.key("sink.ignore-delete")
                    .booleanType()
                    .defaultValue("false")
                    .description(
                            "`true`: deletions are dropped instead of deleting the stored row.")),
    MAX_ROWS(
            "sink.buffer-flush.max-rows",
            "write.batch.max.rows",
            OptionSpec.key("sink.buffer-flush.max-rows")
                    .intType(1, WriteSettings.MAX_ROWS_LIMIT)
                    .defaultValue(Integer.toString(WriteSettings.MAX_ROWS_LIMIT))
                    .description(
                            "Keys written per BatchWriteRow request (the service takes at most"
                                    + " 200). Changes of one key in a request are coalesced.")),
    MAX_RETRIES(
            "sink.max-retries",
            "write.max.retries",
            OptionSpec.key("sink.max-retries")
                    .intType(0, 1000)
                    .defaultValue(Integer.toString(WriteSettings.DEFAULT_MAX_RETRIES))
                    .description(
                            "How often rows the service refused for a passing reason (busy,"
                                    + " timeout, quota, partition unavailable) are sent again, with"
                                    + " a doubling wait from 100 ms to 5 s, before the write"
                                    + " fails."));

    private final OptionSpec flink;
    private final OptionSpec spark;

    WriteOption(String flinkKey, String sparkKey, OptionSpec declared) {
        this.flink = declared.withKey(flinkKey);
        this.spark = declared.withKey(sparkKey);
    }

    /** The option as Flink's {@code 'connector' = 'tablestore'} spells it. */
    public OptionSpec flink() {
        return flink;
    }

    /** The option as Spark's {@code format("tablestore")} spells it. */
    public OptionSpec spark() {
        return spark;
    }
}
