package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.flink.source.config.TablestoreCdcOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.apache.flink.cdc.common.configuration.ConfigOptions;

/**
 * The options of the pipeline source {@code type: tablestore}. The connection, tunnel and policy
 * options are the connectors' own ({@link SourceOption}: same keys, same descriptions, parsed and
 * checked by the core as for the other sources); {@code tables} and {@code tables.exclude} are
 * spelled as Flink CDC's sources spell them; the {@code schema.*} options are this source's.
 */
@PublicEvolving
public final class PipelineOptions {

    static final OptionSpec TABLES_SPEC =
            OptionSpec.key("tables")
                    .required()
                    .description(
                            "The tables to read: a Java regular expression that must match a whole"
                                    + " table name (`orders_.*`, `orders|users`). Tables created"
                                    + " while the pipeline runs are found every"
                                    + " `table.discovery.interval` and read from their first"
                                    + " change.");

    static final OptionSpec TABLES_EXCLUDE_SPEC =
            OptionSpec.key("tables.exclude")
                    .description("A regular expression of whole table names to leave out.");

    static final OptionSpec SCHEMA_MODE_SPEC =
            OptionSpec.key("schema.mode")
                    .enumType(SchemaMode.class)
                    .defaultValue(SchemaMode.EVOLVING.toString())
                    .description(
                            "Where a table's attribute columns come from: `declared`"
                                    + " (`schema.columns.<table>`), `sampled` (the table's first"
                                    + " `schema.sample.rows` rows at start) or `evolving` (sampled,"
                                    + " then each new column a change carries is added); see"
                                    + " [Schema modes](#schema-modes).");

    static final OptionSpec SCHEMA_SAMPLE_ROWS_SPEC =
            OptionSpec.key("schema.sample.rows")
                    .intType(1, Integer.MAX_VALUE)
                    .defaultValue("1000")
                    .description(
                            "How many of a table's first rows `sampled` and `evolving` read at"
                                    + " start to find its attribute columns.");

    static final OptionSpec SCHEMA_COLUMNS_SPEC =
            OptionSpec.key("schema.columns.<table>")
                    .requiredWhen("with `schema.mode` = `declared`")
                    .description(
                            "A table's attribute columns, `name TYPE, name TYPE, ...` (types"
                                    + " below).");

    /** A regular expression over table names (a whole name must match), as Flink CDC's sources. */
    public static final ConfigOption<String> TABLES = text(TABLES_SPEC);

    /** A regular expression over table names to leave out. */
    public static final ConfigOption<String> TABLES_EXCLUDE = text(TABLES_EXCLUDE_SPEC);

    public static final ConfigOption<String> SCHEMA_MODE = text(SCHEMA_MODE_SPEC);

    public static final ConfigOption<Integer> SCHEMA_SAMPLE_ROWS =
            ConfigOptions.key(SCHEMA_SAMPLE_ROWS_SPEC.key())
                    .intType()
                    .defaultValue(
                            Integer.parseInt(SCHEMA_SAMPLE_ROWS_SPEC.defaultValue().orElseThrow()))
                    .withDescription(SCHEMA_SAMPLE_ROWS_SPEC.description());

    public static final ConfigOption<Duration> DISCOVERY_INTERVAL =
            duration(TablestoreCdcOptions.DISCOVERY_INTERVAL_SPEC);

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
            duration(TablestoreCdcOptions.HEARTBEAT_INTERVAL_SPEC);

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT =
            duration(TablestoreCdcOptions.HEARTBEAT_TIMEOUT_SPEC);

    /** The prefix of {@code schema.columns.<table>}: a table's declared columns. */
    public static final String SCHEMA_COLUMNS_PREFIX = "schema.columns.";

    /** How the shared options' keys read here: {@code tables} for the core's pattern. */
    static final Map<String, String> RENAMED =
            Map.of(
                    TABLES.key(), SourceOption.TABLE_PATTERN.key(),
                    TABLES_EXCLUDE.key(), SourceOption.TABLE_EXCLUDE.key());

    /** The shared options this source takes as they are. */
    static final Set<SourceOption> SHARED =
            Set.of(
                    SourceOption.ENDPOINT,
                    SourceOption.INSTANCE_NAME,
                    SourceOption.ACCESS_KEY_ID,
                    SourceOption.ACCESS_KEY_SECRET,
                    SourceOption.STS_TOKEN,
                    SourceOption.CREDENTIALS_PROVIDER,
                    SourceOption.CREDENTIALS_ECS_ROLE_NAME,
                    SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT,
                    SourceOption.TABLE_DISCOVERY_INTERVAL,
                    SourceOption.ON_DROPPED_TABLE,
                    SourceOption.TUNNEL_NAME,
                    SourceOption.TUNNEL_CREATE,
                    SourceOption.TUNNEL_START,
                    SourceOption.META_TABLE,
                    SourceOption.SKIP_INVALID_DATA,
                    SourceOption.ON_SERVER_AHEAD,
                    SourceOption.META_FULL_SNAPSHOT_EVERY,
                    SourceOption.META_RETENTION_BATCHES);

    private PipelineOptions() {}

    /**
     * Every option, declared, in the order the docs list them: the shared ones ({@code tables} and
     * {@code tables.exclude} in the place of the core's pattern), then this source's.
     */
    static List<OptionSpec> declared() {
        List<OptionSpec> all = new ArrayList<>();
        for (SourceOption option : SourceOption.values()) {
            if (option == SourceOption.TABLE_PATTERN) {
                all.add(TABLES_SPEC);
            } else if (option == SourceOption.TABLE_EXCLUDE) {
                all.add(TABLES_EXCLUDE_SPEC);
            } else if (SHARED.contains(option)) {
                all.add(spelledHere(option.spec()));
            }
        }
        all.add(TablestoreCdcOptions.DISCOVERY_INTERVAL_SPEC);
        all.add(TablestoreCdcOptions.HEARTBEAT_INTERVAL_SPEC);
        all.add(TablestoreCdcOptions.HEARTBEAT_TIMEOUT_SPEC);
        all.add(SCHEMA_MODE_SPEC);
        all.add(SCHEMA_SAMPLE_ROWS_SPEC);
        all.add(SCHEMA_COLUMNS_SPEC);
        return all;
    }

    /** A shared option described with this source's keys ({@code tables} for the pattern). */
    private static OptionSpec spelledHere(OptionSpec shared) {
        String text = shared.description();
        for (Map.Entry<String, String> renamed : RENAMED.entrySet()) {
            text = text.replace("`" + renamed.getValue() + "`", "`" + renamed.getKey() + "`");
        }
        return shared.withDescription(text);
    }

    private static ConfigOption<String> text(OptionSpec spec) {
        ConfigOptions.TypedConfigOptionBuilder<String> typed =
                ConfigOptions.key(spec.key()).stringType();
        return spec.defaultValue()
                .map(typed::defaultValue)
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /** A duration option as Flink CDC declares one. */
    private static ConfigOption<Duration> duration(OptionSpec spec) {
        return ConfigOptions.key(spec.key())
                .durationType()
                .defaultValue(
                        OptionValues.parseDuration(spec.defaultValue().orElseThrow()).orElseThrow())
                .withDescription(spec.description());
    }

    /** The shared option as a Flink CDC option of text (the core parses the text). */
    static ConfigOption<String> of(SourceOption option) {
        return ConfigOptions.key(option.key())
                .stringType()
                .noDefaultValue()
                .withDescription(spelledHere(option.spec()).description());
    }

    /** The options a pipeline must set. */
    static Set<ConfigOption<?>> required() {
        Set<ConfigOption<?>> required = new LinkedHashSet<>();
        SHARED.stream()
                .filter(SourceOption::required)
                .map(PipelineOptions::of)
                .forEach(required::add);
        required.add(TABLES);
        return required;
    }

    /** The options a pipeline may set (besides {@code schema.columns.<table>}). */
    static Set<ConfigOption<?>> optional() {
        Set<ConfigOption<?>> optional = new LinkedHashSet<>();
        SHARED.stream().filter(o -> !o.required()).map(PipelineOptions::of).forEach(optional::add);
        optional.add(TABLES_EXCLUDE);
        optional.add(SCHEMA_MODE);
        optional.add(SCHEMA_SAMPLE_ROWS);
        optional.add(DISCOVERY_INTERVAL);
        optional.add(HEARTBEAT_INTERVAL);
        optional.add(HEARTBEAT_TIMEOUT);
        return optional;
    }
}
