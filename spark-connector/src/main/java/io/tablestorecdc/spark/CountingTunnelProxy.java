package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;

/** A {@link TunnelProxy} that counts the read requests a task makes, for its task metrics. */
final class CountingTunnelProxy extends ForwardingTunnelProxy {

    private long readRequests;

    CountingTunnelProxy(TunnelProxy delegate) {
        super(delegate);
    }

    /** {@code readRecords} calls so far (each may have been retried inside the adapter). */
    long readRequests() {
        return readRequests;
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        readRequests++;
        return super.readRecords(client, channelId, token);
    }
}
