package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A task's view of a shared {@link TunnelProxy} that counts the read requests the task makes, for
 * its task metrics. The proxy is borrowed: closing this view leaves it open.
 */
final class CountingTunnelProxy extends ForwardingTunnelProxy {

    // Pages read ahead are requested from another thread.
    private final AtomicLong readRequests = new AtomicLong();

    CountingTunnelProxy(TunnelProxy delegate) {
        super(delegate);
    }

    /** {@code readRecords} calls so far (each may have been retried inside the adapter). */
    long readRequests() {
        return readRequests.get();
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        readRequests.incrementAndGet();
        return super.readRecords(client, channelId, token);
    }

    /** The shared proxy belongs to {@link ExecutorClients}, which closes it when idle. */
    @Override
    public void close() {}
}
