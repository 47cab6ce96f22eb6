package io.tablestorecdc.flink.source.config;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the Tablestore CDC source, declared once. The keys are the Spark source's, so one
 * set of options configures either engine.
 */
@PublicEvolving
public final class TablestoreCdcOptions {

    public static final ConfigOption<String> ENDPOINT =
            ConfigOptions.key("endpoint")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The Tablestore instance endpoint, http(s)://host[:port] with no path,"
                                    + " e.g. https://myinstance.cn-hangzhou.ots.aliyuncs.com.");

    public static final ConfigOption<String> INSTANCE_NAME =
            ConfigOptions.key("instance.name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The Tablestore instance name.");

    public static final ConfigOption<String> ACCESS_KEY_ID =
            ConfigOptions.key("access.key.id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The access key id.");

    public static final ConfigOption<String> ACCESS_KEY_SECRET =
            ConfigOptions.key("access.key.secret")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The access key secret. Never logged or shown in toString().");

    public static final ConfigOption<String> STS_TOKEN =
            ConfigOptions.key("sts.token")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Optional STS security token for temporary credentials. Never"
                                    + " logged or shown in toString().");

    public static final ConfigOption<String> TABLE_NAME =
            ConfigOptions.key("table.name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The data table whose changes are read.");

    public static final ConfigOption<String> TUNNEL_NAME =
            ConfigOptions.key("tunnel.name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The tunnel to read. One Flink job owns one tunnel: give every job its"
                                    + " own tunnel.");

    public static final ConfigOption<String> TUNNEL_CREATE =
            ConfigOptions.key("tunnel.create")
                    .stringType()
                    .defaultValue(TunnelCreation.NONE.code())
                    .withDescription(
                            "Create the tunnel when it does not exist: none (it must exist),"
                                    + " stream, base or base-and-stream.");

    public static final ConfigOption<String> TUNNEL_START =
            ConfigOptions.key("tunnel.start")
                    .stringType()
                    .defaultValue("latest")
                    .withDescription(
                            "Where the stream part of a tunnel the source creates starts: latest,"
                                    + " earliest or an ISO-8601 instant. Ignored for an existing"
                                    + " tunnel and on restore from a checkpoint.");

    public static final ConfigOption<String> META_TABLE =
            ConfigOptions.key("meta.table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Meta table (created if missing; tablestore_cdc_meta when not"
                                    + " set) holding the job's owner lease on the tunnel (a second"
                                    + " job or Spark query on it is refused) and every completed"
                                    + " checkpoint's committed positions, so that progress is"
                                    + " visible and another engine can resume. Exactly once comes"
                                    + " from Flink state either way.");

    public static final ConfigOption<Boolean> SKIP_INVALID_DATA =
            ConfigOptions.key("skip.invalid.data")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Skip (and count) change records that do not fit the produced type"
                                    + " instead of failing the job.");

    public static final ConfigOption<Boolean> IGNORE_DELETE =
            ConfigOptions.key("ignore.delete")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Drop row deletions instead of emitting them.");

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
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "How often the tunnel client heartbeats; at least 5 s. A finished"
                                    + " channel triggers an extra heartbeat right after its"
                                    + " commit.");

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT =
            ConfigOptions.key("heartbeat.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(300))
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
    public static java.time.Instant parseStopAt(String value) {
        try {
            return java.time.Instant.parse(value.trim());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "Invalid "
                            + SCAN_BOUNDED_STOP_AT.key()
                            + " '"
                            + value
                            + "': use an ISO-8601 instant such as 2026-01-31T08:00:00Z");
        }
    }
}
