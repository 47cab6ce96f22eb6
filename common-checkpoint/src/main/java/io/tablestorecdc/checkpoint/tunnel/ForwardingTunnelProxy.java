package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link TunnelProxy} that passes every call to another; extend it and override the calls to
 * observe (counting reads for task metrics, recording heartbeats in a test).
 */
@Internal
public abstract class ForwardingTunnelProxy implements TunnelProxy {

    private final TunnelProxy delegate;

    protected ForwardingTunnelProxy(TunnelProxy delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public TunnelDescription describeTunnel(String tableName, String tunnelName) {
        return delegate.describeTunnel(tableName, tunnelName);
    }

    @Override
    public String createTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        return delegate.createTunnel(tableName, tunnelName, type, start);
    }

    @Override
    public TunnelDescription describeOrCreateTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        return delegate.describeOrCreateTunnel(tableName, tunnelName, type, start);
    }

    @Override
    public TunnelClientId connect(String tunnelId, String clientTag, Duration heartbeatTimeout) {
        return delegate.connect(tunnelId, clientTag, heartbeatTimeout);
    }

    @Override
    public List<AssignedChannel> heartbeat(TunnelClientId client, List<HeldChannel> held) {
        return delegate.heartbeat(client, held);
    }

    @Override
    public ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
        return delegate.getCheckpoint(client, channelId);
    }

    @Override
    public long checkpoint(
            TunnelClientId client,
            String channelId,
            ChannelPosition position,
            long sequenceNumber) {
        return delegate.checkpoint(client, channelId, position, sequenceNumber);
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        return delegate.readRecords(client, channelId, token);
    }

    @Override
    public void shutdown(TunnelClientId client) {
        delegate.shutdown(client);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
