package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.flink.source.config.TablestoreCdcOptions;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.apache.flink.cdc.common.configuration.ConfigOptions;

/**
 * The options of the pipeline source {@code type: tablestore}. The connection, tunnel and policy
 * options are the connectors' own ({@link SourceOption}: same keys, same descriptions, parsed and
 * checked by the core as for the other sources); {@code tables} and {@code tables.exclude} are
 * spelled as Flink CDC's sources spell them; the {@code schema.*} options are this source's.
 */
public final class PipelineOptions {

    /** A regular expression over table names (a whole name must match), as Flink CDC's sources. */
    public static final ConfigOption<String> TABLES =
            ConfigOptions.key("tables")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The tables to read: a Java regular expression that must match a whole"
                                    + " table name (e.g. orders_.* or orders|users). Tables created"
                                    + " while the pipeline runs are found every"
                                    + " table.discovery.interval.");

    /** A regular expression over table names to leave out. */
    public static final ConfigOption<String> TABLES_EXCLUDE =
            ConfigOptions.key("tables.exclude")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A regular expression of table names to leave out.");

    public static final ConfigOption<String> SCHEMA_MODE =
            ConfigOptions.key("schema.mode")
                    .stringType()
                    .defaultValue(SchemaMode.EVOLVING.code())
                    .withDescription(
                            "Where a table's attribute columns come from: declared"
                                    + " (schema.columns.<table>), sampled (the table's first"
                                    + " schema.sample.rows rows at start) or evolving (sampled,"
                                    + " then each new column a change carries is added).");

    public static final ConfigOption<Integer> SCHEMA_SAMPLE_ROWS =
            ConfigOptions.key("schema.sample.rows")
                    .intType()
                    .defaultValue(1000)
                    .withDescription(
                            "How many of a table's first rows the sampled and evolving modes read"
                                    + " at start to find its attribute columns.");

    public static final ConfigOption<Duration> DISCOVERY_INTERVAL =
            ConfigOptions.key(TablestoreCdcOptions.DISCOVERY_INTERVAL.key())
                    .durationType()
                    .defaultValue(TablestoreCdcOptions.DISCOVERY_INTERVAL.defaultValue())
                    .withDescription(
                            "How often each table's channels are listed to find newly opened ones"
                                    + " (children of a split or merge).");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
            ConfigOptions.key(TablestoreCdcOptions.HEARTBEAT_INTERVAL.key())
                    .durationType()
                    .defaultValue(TablestoreCdcOptions.HEARTBEAT_INTERVAL.defaultValue())
                    .withDescription("How often the tunnel clients send heartbeats.");

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT =
            ConfigOptions.key(TablestoreCdcOptions.HEARTBEAT_TIMEOUT.key())
                    .durationType()
                    .defaultValue(TablestoreCdcOptions.HEARTBEAT_TIMEOUT.defaultValue())
                    .withDescription(
                            "How long the tunnel server keeps a client's channels without a"
                                    + " heartbeat.");

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

    /** The shared option as a Flink CDC option of text (the core parses the text). */
    static ConfigOption<String> of(SourceOption option) {
        return ConfigOptions.key(option.key())
                .stringType()
                .noDefaultValue()
                .withDescription(option.description());
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
