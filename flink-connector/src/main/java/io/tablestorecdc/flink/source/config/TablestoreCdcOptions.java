package io.tablestorecdc.flink.source.config;

import static io.tablestorecdc.flink.source.config.DeclaredOptions.choice;
import static io.tablestorecdc.flink.source.config.DeclaredOptions.duration;
import static io.tablestorecdc.flink.source.config.DeclaredOptions.flag;
import static io.tablestorecdc.flink.source.config.DeclaredOptions.integer;
import static io.tablestorecdc.flink.source.config.DeclaredOptions.text;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;

/**
 * Every option of the Tablestore CDC source. The options Flink shares with Spark take their key,
 * default and description from the core's {@link SourceOption}, so one set of options configures
 * either engine; the ones below them exist in Flink only.
 */
@PublicEvolving
public final class TablestoreCdcOptions {

    public static final ConfigOption<String> ENDPOINT = text(SourceOption.ENDPOINT.spec());

    public static final ConfigOption<String> INSTANCE_NAME =
            text(SourceOption.INSTANCE_NAME.spec());

    public static final ConfigOption<String> ACCESS_KEY_ID =
            text(SourceOption.ACCESS_KEY_ID.spec());

    public static final ConfigOption<String> ACCESS_KEY_SECRET =
            text(SourceOption.ACCESS_KEY_SECRET.spec());

    public static final ConfigOption<String> STS_TOKEN = text(SourceOption.STS_TOKEN.spec());

    public static final ConfigOption<String> CREDENTIALS_PROVIDER =
            text(SourceOption.CREDENTIALS_PROVIDER.spec());

    public static final ConfigOption<String> CREDENTIALS_ECS_ROLE_NAME =
            text(SourceOption.CREDENTIALS_ECS_ROLE_NAME.spec());

    public static final ConfigOption<String> CREDENTIALS_ECS_METADATA_ENDPOINT =
            text(SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT.spec());

    public static final ConfigOption<String> TABLE_NAME = text(SourceOption.TABLE_NAME.spec());

    public static final ConfigOption<String> TABLE_PATTERN =
            text(SourceOption.TABLE_PATTERN.spec());

    public static final ConfigOption<String> TABLE_EXCLUDE =
            text(SourceOption.TABLE_EXCLUDE.spec());

    /** A duration as the core reads it ({@code 30s}, {@code 1min}, {@code 0s}, {@code PT30S}). */
    public static final ConfigOption<String> TABLE_DISCOVERY_INTERVAL =
            text(SourceOption.TABLE_DISCOVERY_INTERVAL.spec());

    public static final ConfigOption<DroppedTablePolicy> ON_DROPPED_TABLE =
            choice(SourceOption.ON_DROPPED_TABLE.spec(), DroppedTablePolicy.class);

    public static final ConfigOption<String> TUNNEL_NAME = text(SourceOption.TUNNEL_NAME.spec());

    public static final ConfigOption<TunnelCreation> TUNNEL_CREATE =
            choice(SourceOption.TUNNEL_CREATE.spec(), TunnelCreation.class);

    /** Values as {@link StartPosition#parse} reads them. */
    public static final ConfigOption<String> TUNNEL_START = text(SourceOption.TUNNEL_START.spec());

    public static final ConfigOption<String> META_TABLE = text(SourceOption.META_TABLE.spec());

    public static final ConfigOption<Integer> META_FULL_SNAPSHOT_EVERY =
            integer(SourceOption.META_FULL_SNAPSHOT_EVERY.spec());

    public static final ConfigOption<Integer> META_RETENTION_BATCHES =
            integer(SourceOption.META_RETENTION_BATCHES.spec());

    public static final ConfigOption<Boolean> SKIP_INVALID_DATA =
            flag(SourceOption.SKIP_INVALID_DATA.spec());

    public static final ConfigOption<Boolean> IGNORE_DELETE =
            flag(SourceOption.IGNORE_DELETE.spec());

    public static final ConfigOption<ServerAheadPolicy> ON_SERVER_AHEAD =
            choice(SourceOption.ON_SERVER_AHEAD.spec(), ServerAheadPolicy.class);

    public static final OptionSpec DISCOVERY_INTERVAL_SPEC =
            OptionSpec.key("discovery.interval")
                    .durationType(false)
                    .defaultValue("5s")
                    .description(
                            "How often the enumerator lists the tunnel's channels to find newly"
                                    + " opened ones (children of a split or merge).");

    public static final OptionSpec HEARTBEAT_INTERVAL_SPEC =
            OptionSpec.key("heartbeat.interval")
                    .durationType(false)
                    .defaultValue(TunnelSessionConfig.DEFAULT_HEARTBEAT_INTERVAL.toSeconds() + "s")
                    .description(
                            "How often the tunnel client heartbeats; at least 5 s. A finished"
                                    + " channel triggers an extra heartbeat right after its"
                                    + " commit.");

    public static final OptionSpec HEARTBEAT_TIMEOUT_SPEC =
            OptionSpec.key("heartbeat.timeout")
                    .durationType(false)
                    .defaultValue(TunnelSessionConfig.DEFAULT_HEARTBEAT_TIMEOUT.toSeconds() + "s")
                    .description(
                            "How long the server keeps the tunnel client without a heartbeat;"
                                    + " at least twice the heartbeat interval.");

    public static final OptionSpec SCAN_BOUNDED_STOP_AT_SPEC =
            OptionSpec.key("scan.bounded.stop-at")
                    .description(
                            "Makes the source bounded: an ISO-8601 instant such as"
                                    + " `2026-01-31T08:00:00Z`. Each channel is read up to its"
                                    + " last change committed at or before it; the job ends when"
                                    + " every channel has stopped there or finished. Unset: read"
                                    + " continuously. See [Bounded reads](#bounded-reads).");

    /** The options only Flink's source has, in the order the docs list them. */
    public static final List<OptionSpec> FLINK_ONLY =
            List.of(
                    DISCOVERY_INTERVAL_SPEC,
                    HEARTBEAT_INTERVAL_SPEC,
                    HEARTBEAT_TIMEOUT_SPEC,
                    SCAN_BOUNDED_STOP_AT_SPEC);

    public static final ConfigOption<Duration> DISCOVERY_INTERVAL =
            duration(DISCOVERY_INTERVAL_SPEC);

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
            duration(HEARTBEAT_INTERVAL_SPEC);

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT = duration(HEARTBEAT_TIMEOUT_SPEC);

    public static final ConfigOption<String> SCAN_BOUNDED_STOP_AT = text(SCAN_BOUNDED_STOP_AT_SPEC);

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
}
