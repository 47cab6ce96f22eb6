package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import io.tablestorecdc.flink.source.config.StartPosition;
import io.tablestorecdc.flink.source.config.TablestoreCdcOptions;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link TablestoreCdcSource}. {@link #build()} checks every setting and names what is
 * wrong and how to fix it.
 *
 * @param <T> the type of the records produced
 */
@PublicEvolving
public final class TablestoreCdcSourceBuilder<T> {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreCdcSourceBuilder.class);

    /** How a user of this builder sets each shared option, for a missing-option message. */
    private static final Map<String, String> SETTERS =
            Map.of(
                    SourceOption.ENDPOINT.key(),
                    "setEndpoint(\"https://<instance>.<region>.ots.aliyuncs.com\")",
                    SourceOption.INSTANCE_NAME.key(),
                    "setInstanceName(...)",
                    SourceOption.ACCESS_KEY_ID.key(),
                    "setCredentials(id, secret)",
                    SourceOption.ACCESS_KEY_SECRET.key(),
                    "setCredentials(id, secret)",
                    SourceOption.TABLE_NAME.key(),
                    "setTableName(...) (or setTableNames / setTablePattern)",
                    SourceOption.TUNNEL_NAME.key(),
                    "setTunnelName(...)");

    private String endpoint;
    private String instanceName;
    private String accessKeyId;
    private String accessKeySecret;
    private String stsToken;
    private String credentialsProvider;
    private String ecsRoleName;
    private String ecsMetadataEndpoint;
    private String tableName;
    private String tablePattern;
    private String tableExclude;
    private Duration tableDiscoveryInterval;
    private DroppedTablePolicy onDroppedTable;
    private String tunnelName;
    private TunnelCreation tunnelCreation = TunnelCreation.NONE;
    private StartPosition startPosition = StartPosition.latest();
    private String metaTable;
    private Duration discoveryInterval = TablestoreCdcOptions.DISCOVERY_INTERVAL.defaultValue();
    private Duration heartbeatInterval = TablestoreCdcOptions.HEARTBEAT_INTERVAL.defaultValue();
    private Duration heartbeatTimeout = TablestoreCdcOptions.HEARTBEAT_TIMEOUT.defaultValue();
    private boolean skipInvalidData;
    private boolean ignoreDelete;
    private ServerAheadPolicy onServerAhead = ServerAheadPolicy.FAIL;
    private int metaFullSnapshotEvery = MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY;
    private int metaRetentionBatches = MetaTable.DEFAULT_RETENTION_BATCHES;
    private Instant stopAt;
    private ChangeRecordDeserializer<T> deserializer;
    private TunnelProxyFactory proxyFactory = SdkTunnelProxyFactory.INSTANCE;
    private MetaTableClientFactory metaFactory = SdkMetaTableClientFactory.INSTANCE;

    /** The latest end position (changes carry commit times in microseconds, as a long). */
    private static final Instant LAST_STOP_AT = Instant.parse("9999-12-31T23:59:59Z");

    TablestoreCdcSourceBuilder() {}

    /** The instance endpoint, {@code http(s)://host[:port]} (option {@code endpoint}). */
    public TablestoreCdcSourceBuilder<T> setEndpoint(String endpoint) {
        this.endpoint = endpoint;
        return this;
    }

    /** The instance name (option {@code instance.name}). */
    public TablestoreCdcSourceBuilder<T> setInstanceName(String instanceName) {
        this.instanceName = instanceName;
        return this;
    }

    /** The access key pair (options {@code access.key.id}, {@code access.key.secret}). */
    public TablestoreCdcSourceBuilder<T> setCredentials(
            String accessKeyId, String accessKeySecret) {
        this.accessKeyId = accessKeyId;
        this.accessKeySecret = accessKeySecret;
        return this;
    }

    /** An STS token for temporary credentials (option {@code sts.token}). */
    public TablestoreCdcSourceBuilder<T> setStsToken(String stsToken) {
        this.stsToken = stsToken;
        return this;
    }

    /**
     * Where clients get their credentials (option {@code credentials.provider}): {@code static}
     * (the default, {@link #setCredentials}), {@code env}, {@code ecs-ram-role} or the class name
     * of a provider. Resolved on each task manager and the job manager where a client is built, and
     * refreshed there; never part of the job graph.
     */
    public TablestoreCdcSourceBuilder<T> setCredentialsProvider(String credentialsProvider) {
        this.credentialsProvider = credentialsProvider;
        return this;
    }

    /**
     * With {@code ecs-ram-role}: the RAM role (option {@code credentials.ecs.role.name}; {@code
     * null} for the instance's one role) and the metadata service (option {@code
     * credentials.ecs.metadata.endpoint}; {@code null} for the ECS default).
     */
    public TablestoreCdcSourceBuilder<T> setEcsRamRole(String roleName, String metadataEndpoint) {
        this.ecsRoleName = roleName;
        this.ecsMetadataEndpoint = metadataEndpoint;
        return this;
    }

    /**
     * The table whose changes are read, or a comma-separated list of tables (option {@code
     * table.name}).
     */
    public TablestoreCdcSourceBuilder<T> setTableName(String tableName) {
        this.tableName = tableName;
        return this;
    }

    /** The tables whose changes are read, in one source (option {@code table.name}). */
    public TablestoreCdcSourceBuilder<T> setTableNames(String... tableNames) {
        this.tableName = String.join(",", tableNames);
        return this;
    }

    /**
     * A Java regular expression that selects the tables read by their whole name, instead of {@link
     * #setTableName} (option {@code table.pattern}). Tables that match later are found on the
     * {@link #setTableDiscoveryInterval discovery interval} and read from their earliest change.
     */
    public TablestoreCdcSourceBuilder<T> setTablePattern(String regex) {
        this.tablePattern = regex;
        return this;
    }

    /**
     * A regular expression of table names the pattern leaves out (option {@code table.exclude}).
     */
    public TablestoreCdcSourceBuilder<T> setTableExclude(String regex) {
        this.tableExclude = regex;
        return this;
    }

    /**
     * How often the pattern is evaluated again while the source runs; zero for only at start
     * (option {@code table.discovery.interval}, default 1 min).
     */
    public TablestoreCdcSourceBuilder<T> setTableDiscoveryInterval(Duration interval) {
        this.tableDiscoveryInterval = interval;
        return this;
    }

    /**
     * With several tables: what to do when a table read is gone (dropped): {@code SKIP} (close its
     * tunnel client, log a warning, count it in {@code tablesDropped}, go on; the default) or
     * {@code FAIL} (fail the job naming the table). Option {@code on.dropped.table}.
     */
    public TablestoreCdcSourceBuilder<T> setOnDroppedTable(DroppedTablePolicy policy) {
        this.onDroppedTable = policy;
        return this;
    }

    /** The tunnel to read; one job per tunnel (option {@code tunnel.name}). */
    public TablestoreCdcSourceBuilder<T> setTunnelName(String tunnelName) {
        this.tunnelName = tunnelName;
        return this;
    }

    /** Whether and which tunnel to create when it is missing (option {@code tunnel.create}). */
    public TablestoreCdcSourceBuilder<T> setTunnelCreation(TunnelCreation tunnelCreation) {
        this.tunnelCreation = tunnelCreation;
        return this;
    }

    /** Where a created tunnel's stream starts (option {@code tunnel.start}). */
    public TablestoreCdcSourceBuilder<T> setStartPosition(StartPosition startPosition) {
        this.startPosition = startPosition;
        return this;
    }

    /**
     * The meta table name (option {@code meta.table}); default {@code tablestore_cdc_meta}. The
     * job's owner lease (one consumer per tunnel) and its progress snapshots live there.
     */
    public TablestoreCdcSourceBuilder<T> setMetaTable(String metaTable) {
        this.metaTable = metaTable;
        return this;
    }

    /** How often channels are listed (option {@code discovery.interval}). */
    public TablestoreCdcSourceBuilder<T> setDiscoveryInterval(Duration discoveryInterval) {
        this.discoveryInterval = discoveryInterval;
        return this;
    }

    /** How often the tunnel client heartbeats (option {@code heartbeat.interval}). */
    public TablestoreCdcSourceBuilder<T> setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    /** How long the server keeps a silent client (option {@code heartbeat.timeout}). */
    public TablestoreCdcSourceBuilder<T> setHeartbeatTimeout(Duration heartbeatTimeout) {
        this.heartbeatTimeout = heartbeatTimeout;
        return this;
    }

    /** Skip records that do not fit instead of failing (option {@code skip.invalid.data}). */
    public TablestoreCdcSourceBuilder<T> setSkipInvalidData(boolean skipInvalidData) {
        this.skipInvalidData = skipInvalidData;
        return this;
    }

    /** Drop row deletions (option {@code ignore.delete}). */
    public TablestoreCdcSourceBuilder<T> setIgnoreDelete(boolean ignoreDelete) {
        this.ignoreDelete = ignoreDelete;
        return this;
    }

    /**
     * What to do when the job was restored from state older than the tunnel server's and some
     * changes can no longer be read (option {@code on.server.ahead}): {@code FAIL} (the default)
     * stops before delivering anything and names the ways out; {@code SKIP} goes on without them,
     * logging and counting each skipped channel.
     */
    public TablestoreCdcSourceBuilder<T> setOnServerAhead(ServerAheadPolicy onServerAhead) {
        this.onServerAhead = java.util.Objects.requireNonNull(onServerAhead, "onServerAhead");
        return this;
    }

    /**
     * How often the meta table gets a full snapshot (option {@code meta.full.snapshot.every},
     * default {@value MetaTable#DEFAULT_FULL_SNAPSHOT_EVERY}): between two, a checkpoint writes
     * only the channels that changed since the last full one. 1 writes every snapshot in full.
     */
    public TablestoreCdcSourceBuilder<T> setMetaFullSnapshotEvery(int checkpoints) {
        this.metaFullSnapshotEvery = checkpoints;
        return this;
    }

    /**
     * How many of the newest checkpoints' snapshots the meta table keeps (option {@code
     * meta.retention.batches}, default {@value MetaTable#DEFAULT_RETENTION_BATCHES}, at least 2);
     * older ones are purged after each write.
     */
    public TablestoreCdcSourceBuilder<T> setMetaRetentionBatches(int checkpoints) {
        this.metaRetentionBatches = checkpoints;
        return this;
    }

    /**
     * Makes the source bounded (option {@code scan.bounded.stop-at}): each channel is read up to
     * its last change committed at or before {@code stopAt}, and the job ends when every channel
     * has stopped there or finished. {@code null} (the default) reads continuously.
     */
    public TablestoreCdcSourceBuilder<T> setStopAt(Instant stopAt) {
        this.stopAt = stopAt;
        return this;
    }

    /** Turns change records into {@code T}. */
    public TablestoreCdcSourceBuilder<T> setDeserializer(ChangeRecordDeserializer<T> deserializer) {
        this.deserializer = deserializer;
        return this;
    }

    /** Replaces the SDK tunnel client, for tests with a fake tunnel server. */
    @Internal
    public TablestoreCdcSourceBuilder<T> setTunnelProxyFactory(TunnelProxyFactory proxyFactory) {
        this.proxyFactory = Objects.requireNonNull(proxyFactory, "proxyFactory");
        return this;
    }

    /**
     * Sets every shared option from settings the core parsed from option text (the SQL table's and
     * the pipeline source's {@code WITH} options): the connection and credentials, the tables, the
     * tunnel and the meta table, and the policies.
     */
    @Internal
    public TablestoreCdcSourceBuilder<T> setSettings(SourceSettings settings) {
        CredentialsSource credentials = settings.credentials();
        credentials
                .fixedCredentials()
                .ifPresent(
                        fixed ->
                                setCredentials(fixed.accessKeyId(), fixed.accessKeySecret())
                                        .setStsToken(fixed.stsToken().orElse(null)));
        switch (credentials.kind()) {
            case STATIC -> {}
            case ENV -> setCredentialsProvider("env");
            case ECS_RAM_ROLE ->
                    setCredentialsProvider("ecs-ram-role")
                            .setEcsRamRole(
                                    credentials.roleName().orElse(null),
                                    credentials.metadataEndpoint().orElse(null));
            case PROVIDER_CLASS -> setCredentialsProvider(credentials.className().orElseThrow());
        }
        TableSelection selection = settings.selection();
        setOnDroppedTable(selection.onDroppedTable());
        if (selection.pattern().isPresent()) {
            setTablePattern(selection.pattern().get())
                    .setTableExclude(selection.exclude().orElse(null))
                    .setTableDiscoveryInterval(selection.discoveryInterval());
        } else {
            setTableNames(selection.listed().toArray(String[]::new));
        }
        return setEndpoint(settings.endpoint())
                .setInstanceName(settings.instanceName())
                .setTunnelName(settings.tunnelName())
                .setTunnelCreation(settings.tunnelCreation())
                .setStartPosition(StartPosition.of(settings.tunnelStart()))
                .setMetaTable(settings.metaTable())
                .setSkipInvalidData(settings.skipInvalidData())
                .setIgnoreDelete(settings.ignoreDelete())
                .setOnServerAhead(settings.onServerAhead())
                .setMetaFullSnapshotEvery(settings.metaFullSnapshotEvery())
                .setMetaRetentionBatches(settings.metaRetentionBatches());
    }

    /** Replaces the SDK meta table client, for tests with an in-memory meta table. */
    @Internal
    public TablestoreCdcSourceBuilder<T> setMetaTableClientFactory(
            MetaTableClientFactory metaFactory) {
        this.metaFactory = Objects.requireNonNull(metaFactory, "metaFactory");
        return this;
    }

    /** Validates the settings and builds the source. */
    public TablestoreCdcSource<T> build() {
        if (tunnelCreation == null || startPosition == null) {
            throw new IllegalArgumentException(
                    "tunnel.create and tunnel.start must not be null: leave them unset for the"
                            + " defaults (none, latest)");
        }
        SourceSettings settings =
                SourceSettings.parse(
                        sharedOptions(),
                        key -> "call " + SETTERS.get(key) + " on the builder",
                        "the Tablestore CDC source",
                        "docs/flink.md");
        if (deserializer == null) {
            throw new IllegalArgumentException(
                    "No deserializer set: call setDeserializer(...) with a"
                            + " ChangeRecordDeserializer, e.g. a RowDataChangeRecordDeserializer");
        }
        validateIntervals();
        validateStopAt();
        // Flink has always accepted a start position without a tunnel to create: say it is unused.
        settings.unusedTunnelStart().ifPresent(LOG::warn);
        return new TablestoreCdcSource<>(
                new TablestoreCdcSourceConfig(
                        settings,
                        discoveryInterval,
                        heartbeatInterval,
                        heartbeatTimeout,
                        Optional.ofNullable(stopAt)),
                deserializer,
                proxyFactory,
                metaFactory,
                Engine.FLINK_CONSUMER_ID_PREFIX + UUID.randomUUID());
    }

    /** The shared settings as option text, so that the core validates them as it does Spark's. */
    private Map<String, String> sharedOptions() {
        Map<String, String> options = new HashMap<>();
        putIfSet(options, SourceOption.ENDPOINT, endpoint);
        putIfSet(options, SourceOption.INSTANCE_NAME, instanceName);
        putIfSet(options, SourceOption.ACCESS_KEY_ID, accessKeyId);
        putIfSet(options, SourceOption.ACCESS_KEY_SECRET, accessKeySecret);
        putIfSet(options, SourceOption.STS_TOKEN, stsToken);
        putIfSet(options, SourceOption.CREDENTIALS_PROVIDER, credentialsProvider);
        putIfSet(options, SourceOption.CREDENTIALS_ECS_ROLE_NAME, ecsRoleName);
        putIfSet(options, SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT, ecsMetadataEndpoint);
        putIfSet(options, SourceOption.TABLE_NAME, tableName);
        putIfSet(options, SourceOption.TABLE_PATTERN, tablePattern);
        putIfSet(options, SourceOption.TABLE_EXCLUDE, tableExclude);
        if (onDroppedTable != null) {
            putIfSet(
                    options,
                    SourceOption.ON_DROPPED_TABLE,
                    onDroppedTable.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (tableDiscoveryInterval != null) {
            putIfSet(
                    options,
                    SourceOption.TABLE_DISCOVERY_INTERVAL,
                    tableDiscoveryInterval.toMillis() + "ms");
        }
        putIfSet(options, SourceOption.TUNNEL_NAME, tunnelName);
        putIfSet(options, SourceOption.TUNNEL_CREATE, tunnelCreation.code());
        if (!startPosition.equals(StartPosition.latest())) {
            putIfSet(options, SourceOption.TUNNEL_START, startPosition.toString());
        }
        putIfSet(options, SourceOption.META_TABLE, metaTable);
        putIfSet(options, SourceOption.SKIP_INVALID_DATA, String.valueOf(skipInvalidData));
        putIfSet(options, SourceOption.IGNORE_DELETE, String.valueOf(ignoreDelete));
        putIfSet(
                options,
                SourceOption.ON_SERVER_AHEAD,
                onServerAhead.name().toLowerCase(java.util.Locale.ROOT));
        putIfSet(
                options,
                SourceOption.META_FULL_SNAPSHOT_EVERY,
                String.valueOf(metaFullSnapshotEvery));
        putIfSet(
                options, SourceOption.META_RETENTION_BATCHES, String.valueOf(metaRetentionBatches));
        return options;
    }

    private static void putIfSet(Map<String, String> options, SourceOption option, String value) {
        if (value != null) {
            options.put(option.key(), value);
        }
    }

    private void validateIntervals() {
        if (discoveryInterval == null
                || discoveryInterval.isNegative()
                || discoveryInterval.isZero()) {
            throw new IllegalArgumentException(
                    "'"
                            + TablestoreCdcOptions.DISCOVERY_INTERVAL.key()
                            + "' must be positive but was "
                            + discoveryInterval
                            + "; use e.g. Duration.ofSeconds(5)");
        }
        if (heartbeatInterval == null || heartbeatTimeout == null) {
            throw new IllegalArgumentException(
                    "heartbeat.interval and heartbeat.timeout must not be null: leave them unset"
                            + " for the defaults (10 s, 300 s)");
        }
        new TunnelSessionConfig("validation", heartbeatInterval, heartbeatTimeout);
    }

    private void validateStopAt() {
        if (stopAt != null && (stopAt.isBefore(Instant.EPOCH) || stopAt.isAfter(LAST_STOP_AT))) {
            throw new IllegalArgumentException(
                    "'"
                            + TablestoreCdcOptions.SCAN_BOUNDED_STOP_AT.key()
                            + "' must lie between 1970 and 9999 but was "
                            + stopAt
                            + "; use the instant up to which changes are read, e.g."
                            + " Instant.parse(\"2026-01-31T08:00:00Z\")");
        }
    }
}
