package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * The validated settings of one source, shipped with the job (so plain serializable fields only;
 * SDK clients are built on the JobManager and TaskManagers from these). The secret and STS token
 * never appear in {@link #toString()} (invariant 9).
 */
@Internal
public final class TablestoreCdcSourceConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String endpoint;
    private final String instanceName;
    private final String accessKeyId;
    private final String accessKeySecret;
    private final String stsToken;
    private final String tableName;
    private final String tunnelName;
    private final TunnelCreation tunnelCreation;
    private final StartPosition startPosition;
    private final String metaTable;
    private final Duration discoveryInterval;
    private final Duration heartbeatInterval;
    private final Duration heartbeatTimeout;
    private final boolean skipInvalidData;
    private final boolean ignoreDelete;

    /** The end position of a bounded source; null for a continuous one. */
    private final Instant stopAt;

    /**
     * Values as the builder validated them; {@code stsToken} and {@code metaTable} may be null,
     * {@code stopAt} is the end position of a bounded source.
     */
    public TablestoreCdcSourceConfig(
            String endpoint,
            String instanceName,
            String accessKeyId,
            String accessKeySecret,
            String stsToken,
            String tableName,
            String tunnelName,
            TunnelCreation tunnelCreation,
            StartPosition startPosition,
            String metaTable,
            Duration discoveryInterval,
            Duration heartbeatInterval,
            Duration heartbeatTimeout,
            boolean skipInvalidData,
            boolean ignoreDelete,
            Optional<Instant> stopAt) {
        this.endpoint = Objects.requireNonNull(endpoint);
        this.instanceName = Objects.requireNonNull(instanceName);
        this.accessKeyId = Objects.requireNonNull(accessKeyId);
        this.accessKeySecret = Objects.requireNonNull(accessKeySecret);
        this.stsToken = stsToken;
        this.tableName = Objects.requireNonNull(tableName);
        this.tunnelName = Objects.requireNonNull(tunnelName);
        this.tunnelCreation = Objects.requireNonNull(tunnelCreation);
        this.startPosition = Objects.requireNonNull(startPosition);
        this.metaTable = metaTable;
        this.discoveryInterval = Objects.requireNonNull(discoveryInterval);
        this.heartbeatInterval = Objects.requireNonNull(heartbeatInterval);
        this.heartbeatTimeout = Objects.requireNonNull(heartbeatTimeout);
        this.skipInvalidData = skipInvalidData;
        this.ignoreDelete = ignoreDelete;
        this.stopAt = stopAt.orElse(null);
    }

    /** The endpoint and credentials for building SDK clients. */
    public TablestoreEndpoint tablestoreEndpoint() {
        TablestoreCredentials credentials =
                TablestoreCredentials.of(accessKeyId, accessKeySecret, stsToken);
        return new TablestoreEndpoint(endpoint, instanceName, credentials);
    }

    /** The tunnel client's heartbeat settings, labelled with {@code clientTag}. */
    public TunnelSessionConfig sessionConfig(String clientTag) {
        return new TunnelSessionConfig(clientTag, heartbeatInterval, heartbeatTimeout);
    }

    public String endpoint() {
        return endpoint;
    }

    public String instanceName() {
        return instanceName;
    }

    public String accessKeyId() {
        return accessKeyId;
    }

    public String tableName() {
        return tableName;
    }

    public String tunnelName() {
        return tunnelName;
    }

    public TunnelCreation tunnelCreation() {
        return tunnelCreation;
    }

    public StartPosition startPosition() {
        return startPosition;
    }

    public Optional<String> metaTable() {
        return Optional.ofNullable(metaTable);
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
        return skipInvalidData;
    }

    public boolean ignoreDelete() {
        return ignoreDelete;
    }

    /** Where a bounded source ends (changes committed after it are not read); empty if never. */
    public Optional<Instant> stopAt() {
        return Optional.ofNullable(stopAt);
    }

    @Override
    public String toString() {
        return "TablestoreCdcSourceConfig{endpoint="
                + endpoint
                + ", instance="
                + instanceName
                + ", accessKeyId="
                + accessKeyId
                + ", accessKeySecret=******"
                + (stsToken == null ? "" : ", stsToken=******")
                + ", table="
                + tableName
                + ", tunnel="
                + tunnelName
                + ", create="
                + tunnelCreation.code()
                + ", start="
                + startPosition
                + (metaTable == null ? "" : ", metaTable=" + metaTable)
                + ", discoveryInterval="
                + discoveryInterval
                + ", heartbeatInterval="
                + heartbeatInterval
                + ", skipInvalidData="
                + skipInvalidData
                + ", ignoreDelete="
                + ignoreDelete
                + (stopAt == null ? "" : ", stopAt=" + stopAt)
                + "}";
    }
}
