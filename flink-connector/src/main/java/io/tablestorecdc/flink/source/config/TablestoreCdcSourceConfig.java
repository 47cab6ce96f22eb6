package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * The validated settings of one source, shipped with the job (so plain serializable fields only;
 * SDK clients are built on the JobManager and TaskManagers from these): the core's {@link
 * SourceSettings}, which Spark reads the same way, and the options only Flink has. The secret and
 * STS token never appear in {@link #toString()} (invariant 9).
 */
@Internal
public final class TablestoreCdcSourceConfig implements Serializable {

    private static final long serialVersionUID = 2L;

    private final SourceSettings settings;
    private final Duration discoveryInterval;
    private final Duration heartbeatInterval;
    private final Duration heartbeatTimeout;

    /** The end position of a bounded source; null for a continuous one. */
    private final Instant stopAt;

    /** Values as the builder validated them; {@code stopAt} is the end of a bounded source. */
    public TablestoreCdcSourceConfig(
            SourceSettings settings,
            Duration discoveryInterval,
            Duration heartbeatInterval,
            Duration heartbeatTimeout,
            Optional<Instant> stopAt) {
        this.settings = Objects.requireNonNull(settings);
        this.discoveryInterval = Objects.requireNonNull(discoveryInterval);
        this.heartbeatInterval = Objects.requireNonNull(heartbeatInterval);
        this.heartbeatTimeout = Objects.requireNonNull(heartbeatTimeout);
        this.stopAt = stopAt.orElse(null);
    }

    /** The options Flink shares with Spark. */
    public SourceSettings settings() {
        return settings;
    }

    /** Whether the source reads several tables (a list or a pattern). */
    public boolean readsSeveralTables() {
        return !settings.selection().single();
    }

    /** These settings for one table of the source's selection. */
    public TablestoreCdcSourceConfig forTable(String table) {
        return withSettings(settings.forTable(table));
    }

    /**
     * These settings for a table found while the source ran: a tunnel the source creates on it
     * starts at its earliest change ({@link SourceSettings#forNewTable}).
     */
    public TablestoreCdcSourceConfig forNewTable(String table) {
        return withSettings(settings.forNewTable(table));
    }

    private TablestoreCdcSourceConfig withSettings(SourceSettings other) {
        return new TablestoreCdcSourceConfig(
                other, discoveryInterval, heartbeatInterval, heartbeatTimeout, stopAt());
    }

    /** The endpoint and credentials for building SDK clients. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return settings.tablestoreEndpoint();
    }

    /** The tunnel client's heartbeat settings, labelled with {@code clientTag}. */
    public TunnelSessionConfig sessionConfig(String clientTag) {
        return new TunnelSessionConfig(clientTag, heartbeatInterval, heartbeatTimeout);
    }

    public String endpoint() {
        return settings.endpoint();
    }

    public String instanceName() {
        return settings.instanceName();
    }

    public String accessKeyId() {
        return settings.accessKeyId();
    }

    /**
     * The one table of a source of one table.
     *
     * @throws IllegalStateException for a source of several tables ({@link #forTable})
     */
    public String tableName() {
        return settings.tableName();
    }

    public String tunnelName() {
        return settings.tunnelName();
    }

    public TunnelCreation tunnelCreation() {
        return settings.tunnelCreation();
    }

    public StartPosition startPosition() {
        return StartPosition.of(settings.tunnelStart());
    }

    /** The meta table; {@code tablestore_cdc_meta} unless set. */
    public String metaTable() {
        return settings.metaTable();
    }

    public Duration discoveryInterval() {
        return discoveryInterval;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration heartbeatTimeout() {
        return heartbeatTimeout;
    }

    public boolean skipInvalidData() {
        return settings.skipInvalidData();
    }

    public boolean ignoreDelete() {
        return settings.ignoreDelete();
    }

    /** Where a bounded source ends (changes committed after it are not read); empty if never. */
    public Optional<Instant> stopAt() {
        return Optional.ofNullable(stopAt);
    }

    @Override
    public String toString() {
        return "TablestoreCdcSourceConfig{"
                + settings.describe()
                + ", "
                + TablestoreCdcOptions.DISCOVERY_INTERVAL.key()
                + "="
                + discoveryInterval
                + ", "
                + TablestoreCdcOptions.HEARTBEAT_INTERVAL.key()
                + "="
                + heartbeatInterval
                + ", "
                + TablestoreCdcOptions.HEARTBEAT_TIMEOUT.key()
                + "="
                + heartbeatTimeout
                + (stopAt == null
                        ? ""
                        : ", " + TablestoreCdcOptions.SCAN_BOUNDED_STOP_AT.key() + "=" + stopAt)
                + "}";
    }
}
