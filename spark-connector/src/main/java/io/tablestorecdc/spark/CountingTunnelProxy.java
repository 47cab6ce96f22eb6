package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.HeldChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.ServerCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.util.List;

/** A {@link TunnelProxy} that counts the read requests a task makes, for its task metrics. */
final class CountingTunnelProxy implements TunnelProxy {

    private final TunnelProxy delegate;
    private long readRequests;

    CountingTunnelProxy(TunnelProxy delegate) {
        this.delegate = delegate;
    }

    /** {@code readRecords} calls so far (each may have been retried inside the adapter). */
    long readRequests() {
        return readRequests;
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        readRequests++;
        return delegate.readRecords(client, channelId, token);
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
    public void shutdown(TunnelClientId client) {
        delegate.shutdown(client);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
