package io.tablestorecdc.flink.table.tablestore;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.flink.source.config.DeclaredOptions;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;

/** Options of {@code 'connector' = 'tablestore'} besides the connection and lookup-cache ones. */
@PublicEvolving
public final class TablestoreTableOptions {

    /** The declaration of {@link #LOOKUP_ASYNC}. */
    public static final OptionSpec LOOKUP_ASYNC_SPEC =
            OptionSpec.key("lookup.async")
                    .booleanType()
                    .defaultValue("true")
                    .description(
                            "Look rows up asynchronously, batching the keys of concurrent lookups"
                                    + " into BatchGetRow requests of at most 100 keys; `false`"
                                    + " looks each key up on the task thread.");

    /** Whether lookups run asynchronously, concurrent keys batched into one BatchGetRow. */
    public static final ConfigOption<Boolean> LOOKUP_ASYNC =
            DeclaredOptions.flag(LOOKUP_ASYNC_SPEC);

    /** The declaration of {@link #SCAN_SPLIT_SIZE}. */
    public static final OptionSpec SCAN_SPLIT_SIZE_SPEC =
            OptionSpec.key("scan.split-size")
                    .memorySizeType()
                    .defaultValue("64 mb")
                    .description(
                            "About how much data one split of a bounded scan holds: the scan asks"
                                    + " Tablestore (ComputeSplitsBySize) once for ranges of this"
                                    + " size and reads each in one reader task. The service treats"
                                    + " it as a hint and cuts ranges on the first primary-key"
                                    + " column only, so rows that share its value share a split."
                                    + " Must be positive.");

    /** The data size of one split of a bounded scan. */
    public static final ConfigOption<MemorySize> SCAN_SPLIT_SIZE =
            DeclaredOptions.memorySize(SCAN_SPLIT_SIZE_SPEC);

    private TablestoreTableOptions() {}
}
