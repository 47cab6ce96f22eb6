package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.WriteOption;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.flink.source.config.DeclaredOptions;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;

/**
 * The sink options of {@code 'connector' = 'tablestore'}; the connection options are the {@code
 * tablestore-cdc} source's ({@code TablestoreCdcOptions}).
 */
@PublicEvolving
public final class TablestoreSinkOptions {

    public static final ConfigOption<WriteMode> WRITE_MODE =
            DeclaredOptions.choice(WriteOption.MODE.flink(), WriteMode.class);

    public static final ConfigOption<Boolean> IGNORE_DELETE =
            DeclaredOptions.flag(WriteOption.IGNORE_DELETE.flink());

    public static final ConfigOption<Integer> BUFFER_FLUSH_MAX_ROWS =
            DeclaredOptions.integer(WriteOption.MAX_ROWS.flink());

    /** The declaration of {@link #BUFFER_FLUSH_INTERVAL}, an option only Flink's sink has. */
    public static final OptionSpec BUFFER_FLUSH_INTERVAL_SPEC =
            OptionSpec.key("sink.buffer-flush.interval")
                    .durationType(true)
                    .defaultValue("1s")
                    .description(
                            "The longest a change waits in the buffer; `0s` to write only when"
                                    + " the buffer is full and at checkpoints (every checkpoint"
                                    + " writes the buffer).");

    public static final ConfigOption<Duration> BUFFER_FLUSH_INTERVAL =
            DeclaredOptions.duration(BUFFER_FLUSH_INTERVAL_SPEC);

    public static final ConfigOption<Integer> MAX_RETRIES =
            DeclaredOptions.integer(WriteOption.MAX_RETRIES.flink());

    /** The sink's own options, declared, in the order the docs list them. */
    public static final List<OptionSpec> DECLARED =
            List.of(
                    WriteOption.MODE.flink(),
                    WriteOption.IGNORE_DELETE.flink(),
                    WriteOption.MAX_ROWS.flink(),
                    BUFFER_FLUSH_INTERVAL_SPEC,
                    WriteOption.MAX_RETRIES.flink());

    private TablestoreSinkOptions() {}
}
