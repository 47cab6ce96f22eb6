package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One tunnel: its definition, its channels, its base-data snapshots and its connected clients.
 * Guarded by the owning {@link Tunnels}' lock.
 */
final class Tunnel {

    /** The tunnel's stage, spelled as DescribeTunnel's {@code stage} needs it. */
    enum Stage {
        InitBaseDataAndStreamShard,
        ProcessBaseData,
        ProcessStream
    }

    private final String id;
    private final String name;
    private final String table;
    private final TunnelServiceApi.TunnelType type;
    private final Optional<TunnelServiceApi.StreamTunnelConfig> streamConfig;
    private final long createdNanos;
    private final Map<String, TunnelChannel> channels = new LinkedHashMap<>();
    private final Map<String, List<Row>> baseRows = new HashMap<>();
    private final Map<String, ClientSession> clients = new LinkedHashMap<>();
    private boolean initialized;
    private boolean expired;

    Tunnel(
            String id,
            String name,
            String table,
            TunnelServiceApi.TunnelType type,
            Optional<TunnelServiceApi.StreamTunnelConfig> streamConfig,
            long createdNanos) {
        this.id = id;
        this.name = name;
        this.table = table;
        this.type = type;
        this.streamConfig = streamConfig;
        this.createdNanos = createdNanos;
    }

    String id() {
        return id;
    }

    String name() {
        return name;
    }

    String table() {
        return table;
    }

    TunnelServiceApi.TunnelType type() {
        return type;
    }

    Optional<TunnelServiceApi.StreamTunnelConfig> streamConfig() {
        return streamConfig;
    }

    long createdNanos() {
        return createdNanos;
    }

    /** The tunnel as CreateTunnel defined it. */
    TunnelServiceApi.Tunnel definition() {
        TunnelServiceApi.Tunnel.Builder d =
                TunnelServiceApi.Tunnel.newBuilder()
                        .setTableName(table)
                        .setTunnelName(name)
                        .setTunnelType(type);
        streamConfig.ifPresent(d::setStreamTunnelConfig);
        return d.build();
    }

    boolean hasStream() {
        return type != TunnelServiceApi.TunnelType.BaseData;
    }

    boolean hasBase() {
        return type != TunnelServiceApi.TunnelType.Stream;
    }

    /** The stream end offset in nanoseconds, when the tunnel has one. */
    Optional<Long> endOffsetNanos() {
        return streamConfig
                .filter(TunnelServiceApi.StreamTunnelConfig::hasEndOffset)
                .map(TunnelServiceApi.StreamTunnelConfig::getEndOffset);
    }

    Collection<TunnelChannel> channels() {
        return channels.values();
    }

    Optional<TunnelChannel> channel(String channelId) {
        return Optional.ofNullable(channels.get(channelId));
    }

    void addChannel(TunnelChannel channel) {
        channels.put(channel.id(), channel);
    }

    void addBaseChannel(TunnelChannel channel, List<Row> rows) {
        channels.put(channel.id(), channel);
        baseRows.put(channel.id(), List.copyOf(rows));
    }

    List<Row> baseRows(String channelId) {
        return baseRows.getOrDefault(channelId, List.of());
    }

    Collection<ClientSession> clients() {
        return clients.values();
    }

    Optional<ClientSession> client(String clientId) {
        return Optional.ofNullable(clients.get(clientId));
    }

    void addClient(ClientSession client) {
        clients.put(client.id(), client);
    }

    /** Drops the client and releases its channels, which become assignable again. */
    void removeClient(String clientId) {
        clients.remove(clientId);
        for (TunnelChannel c : channels.values()) {
            if (c.isOwnedBy(clientId)) {
                c.release(c.version());
            }
        }
    }

    /** Removes every client whose heartbeat is overdue; returns how many. */
    int expireClients(long nowMillis, boolean all) {
        List<String> gone = new ArrayList<>();
        for (ClientSession c : clients.values()) {
            if (all || c.isExpired(nowMillis)) {
                gone.add(c.id());
            }
        }
        gone.forEach(this::removeClient);
        return gone.size();
    }

    boolean isInitialized() {
        return initialized;
    }

    void markInitialized() {
        initialized = true;
    }

    boolean isExpired() {
        return expired;
    }

    void expire() {
        expired = true;
    }

    boolean allBaseFinished() {
        return channels.values().stream()
                .filter(c -> c.kind() == ChannelKind.BASE)
                .allMatch(TunnelChannel::isFinished);
    }

    Stage stage() {
        if (!initialized) {
            return Stage.InitBaseDataAndStreamShard;
        }
        // As the service: a BaseData tunnel whose base data has been read reports ProcessStream
        // too (the SDK's functional tests wait for that stage before they end such a tunnel).
        if (type == TunnelServiceApi.TunnelType.Stream || allBaseFinished()) {
            return Stage.ProcessStream;
        }
        return Stage.ProcessBaseData;
    }
}
