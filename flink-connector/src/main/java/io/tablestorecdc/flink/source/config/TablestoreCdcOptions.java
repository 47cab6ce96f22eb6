package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the Tablestore CDC source. The options Flink shares with Spark take their key,
 * default and description from the core's {@link SourceOption}, so one set of options configures
 * either engine; the ones below them exist in Flink only.
 */
@PublicEvolving
public final class TablestoreCdcOptions {

    public static final ConfigOption<String> ENDPOINT = text(SourceOption.ENDPOINT);

    public static final ConfigOption<String> INSTANCE_NAME = text(SourceOption.INSTANCE_NAME);

    public static final ConfigOption<String> ACCESS_KEY_ID = text(SourceOption.ACCESS_KEY_ID);

    public static final ConfigOption<String> ACCESS_KEY_SECRET =
            text(SourceOption.ACCESS_KEY_SECRET);

    public static final ConfigOption<String> STS_TOKEN = text(SourceOption.STS_TOKEN);

    public static final ConfigOption<String> CREDENTIALS_PROVIDER =
            text(SourceOption.CREDENTIALS_PROVIDER);

    public static final ConfigOption<String> CREDENTIALS_ECS_ROLE_NAME =
            text(SourceOption.CREDENTIALS_ECS_ROLE_NAME);

    public static final ConfigOption<String> CREDENTIALS_ECS_METADATA_ENDPOINT =
            text(SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT);

    public static final ConfigOption<String> TABLE_NAME = text(SourceOption.TABLE_NAME);

    public static final ConfigOption<String> TABLE_PATTERN = text(SourceOption.TABLE_PATTERN);

    public static final ConfigOption<String> TABLE_EXCLUDE = text(SourceOption.TABLE_EXCLUDE);

    /** A duration as the core reads it ({@code 30s}, {@code 1min}, {@code 0s}). */
    public static final ConfigOption<String> TABLE_DISCOVERY_INTERVAL =
            text(SourceOption.TABLE_DISCOVERY_INTERVAL);

    /** {@code skip} or {@code fail}, as {@link DroppedTablePolicy} reads them. */
    public static final ConfigOption<String> ON_DROPPED_TABLE = text(SourceOption.ON_DROPPED_TABLE);

    public static final ConfigOption<String> TUNNEL_NAME = text(SourceOption.TUNNEL_NAME);

    /** Values as {@link TunnelCreation#fromCode} reads them. */
    public static final ConfigOption<String> TUNNEL_CREATE = text(SourceOption.TUNNEL_CREATE);

    /** Values as {@link StartPosition#parse} reads them. */
    public static final ConfigOption<String> TUNNEL_START = text(SourceOption.TUNNEL_START);

    public static final ConfigOption<String> META_TABLE = text(SourceOption.META_TABLE);

    public static final ConfigOption<Boolean> SKIP_INVALID_DATA =
            flag(SourceOption.SKIP_INVALID_DATA);

    public static final ConfigOption<Boolean> IGNORE_DELETE = flag(SourceOption.IGNORE_DELETE);

    public static final ConfigOption<String> ON_SERVER_AHEAD = text(SourceOption.ON_SERVER_AHEAD);

    public static final ConfigOption<Integer> META_FULL_SNAPSHOT_EVERY =
            ConfigOptions.key(SourceOption.META_FULL_SNAPSHOT_EVERY.key())
                    .intType()
                    .defaultValue(
                            Integer.parseInt(
                                    SourceOption.META_FULL_SNAPSHOT_EVERY
                                            .defaultValue()
                                            .orElseThrow()))
                    .withDescription(SourceOption.META_FULL_SNAPSHOT_EVERY.description());

    public static final ConfigOption<Integer> META_RETENTION_BATCHES =
            ConfigOptions.key(SourceOption.META_RETENTION_BATCHES.key())
                    .intType()
                    .defaultValue(
                            Integer.parseInt(
                                    SourceOption.META_RETENTION_BATCHES
                                            .defaultValue()
                                            .orElseThrow()))
                    .withDescription(SourceOption.META_RETENTION_BATCHES.description());

    public static final ConfigOption<Duration> DISCOVERY_INTERVAL =
            ConfigOptions.key("discovery.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "How often the enumerator lists the tunnel's channels to find newly"
                                    + " opened ones (children of a split or merge).");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
            ConfigOptions.key("heartbeat.interval")
                    .durationType()
                    .defaultValue(TunnelSessionConfig.DEFAULT_HEARTBEAT_INTERVAL)
                    .withDescription(
                            "How often the tunnel client heartbeats; at least 5 s. A finished"
                                    + " channel triggers an extra heartbeat right after its"
                                    + " commit.");

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT =
            ConfigOptions.key("heartbeat.timeout")
                    .durationType()
                    .defaultValue(TunnelSessionConfig.DEFAULT_HEARTBEAT_TIMEOUT)
                    .withDescription(
                            "How long the server keeps the tunnel client without a heartbeat;"
                                    + " at least twice the heartbeat interval.");

    public static final ConfigOption<String> SCAN_BOUNDED_STOP_AT =
            ConfigOptions.key("scan.bounded.stop-at")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Makes the source bounded: an ISO-8601 instant such as"
                                    + " 2026-01-31T08:00:00Z. Each channel is read up to its last"
                                    + " change committed at or before it; the job ends when every"
                                    + " channel has stopped there or finished. Not set: read"
                                    + " continuously.");

    private TablestoreCdcOptions() {}

    /** Parses a {@link #SCAN_BOUNDED_STOP_AT} value, naming the option and the format on error. */
    public static Instant parseStopAt(String value) {
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    OptionValues.invalidValue(
                            SCAN_BOUNDED_STOP_AT.key(),
                            value,
                            "use an ISO-8601 instant such as 2026-01-31T08:00:00Z"));
        }
    }

    private static ConfigOption<String> text(SourceOption option) {
        ConfigOptions.TypedConfigOptionBuilder<String> typed =
                ConfigOptions.key(option.key()).stringType();
        return option.defaultValue()
                .map(typed::defaultValue)
                .orElseGet(typed::noDefaultValue)
                .withDescription(option.description());
    }

    private static ConfigOption<Boolean> flag(SourceOption option) {
        return ConfigOptions.key(option.key())
                .booleanType()
                .defaultValue(Boolean.parseBoolean(option.defaultValue().orElseThrow()))
                .withDescription(option.description());
    }
}
