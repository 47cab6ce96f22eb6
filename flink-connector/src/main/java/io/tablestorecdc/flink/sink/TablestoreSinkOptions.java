package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The sink options of {@code 'connector' = 'tablestore'}; the connection options are the {@code
 * tablestore-cdc} source's ({@code TablestoreCdcOptions}).
 */
@PublicEvolving
public final class TablestoreSinkOptions {

    public static final ConfigOption<String> WRITE_MODE =
            ConfigOptions.key("sink.write-mode")
                    .stringType()
                    .defaultValue(WriteMode.PUT.code())
                    .withDescription(
                            "put (default): a row replaces the stored row, its null columns"
                                    + " absent; update: only the row's columns change, a null"
                                    + " column is deleted, other stored columns stay. Rows"
                                    + " carrying the tablestore-cdc source's _op column are"
                                    + " applied as the change they were, in either mode.");

    public static final ConfigOption<Boolean> IGNORE_DELETE =
            ConfigOptions.key("sink.ignore-delete")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Drop DELETE rows instead of deleting the stored row.");

    public static final ConfigOption<Integer> BUFFER_FLUSH_MAX_ROWS =
            ConfigOptions.key("sink.buffer-flush.max-rows")
                    .intType()
                    .defaultValue(WriteSettings.MAX_ROWS_LIMIT)
                    .withDescription(
                            "Keys buffered per subtask before they are written in one"
                                    + " BatchWriteRow request: 1 to 200, the service's limit."
                                    + " Changes of one key in the buffer are coalesced.");

    public static final ConfigOption<Duration> BUFFER_FLUSH_INTERVAL =
            ConfigOptions.key("sink.buffer-flush.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .withDescription(
                            "The longest a change waits in the buffer; 0 to write only when"
                                    + " the buffer is full and at checkpoints (every checkpoint"
                                    + " writes the buffer).");

    public static final ConfigOption<Integer> MAX_RETRIES =
            ConfigOptions.key("sink.max-retries")
                    .intType()
                    .defaultValue(WriteSettings.DEFAULT_MAX_RETRIES)
                    .withDescription(
                            "How often rows the service refused for a passing reason (busy,"
                                    + " timeout, quota, partition unavailable) are sent again,"
                                    + " with a doubling wait from 100 ms to 5 s, before the job"
                                    + " fails.");

    private TablestoreSinkOptions() {}
}
