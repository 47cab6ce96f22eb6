package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelRetryPolicy;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One tunnel adapter (an SDK {@code TunnelClient} with its I/O threads) that the tasks of a JVM
 * share, with its retry counter.
 *
 * <p>The adapter counts retries for all its users together. Each task takes, for its {@code
 * tunnelRetries} metric, the retries no other task has reported yet: a retry is reported exactly
 * once, so the sum over a batch's tasks stays right, though two tasks running at the same time in
 * one executor may report each other's.
 */
final class SharedTunnelClient implements AutoCloseable {

    private final SdkTunnelProxy proxy;
    private final TunnelMetrics metrics;
    private final AtomicLong reportedRetries = new AtomicLong();

    SharedTunnelClient(SdkTunnelProxy proxy, TunnelMetrics metrics) {
        this.proxy = proxy;
        this.metrics = metrics;
    }

    static SharedTunnelClient open(TablestoreEndpoint endpoint) {
        TunnelMetrics metrics = new TunnelMetrics();
        return new SharedTunnelClient(
                SdkTunnelProxy.create(endpoint, TunnelRetryPolicy.DEFAULT, metrics), metrics);
    }

    TunnelProxy proxy() {
        return proxy;
    }

    /** Retries made since the last call of any task (each retry is handed out once). */
    long unreportedRetries() {
        long total = metrics.retries();
        long before = reportedRetries.getAndAccumulate(total, Math::max);
        return Math.max(0, total - before);
    }

    @Override
    public void close() {
        proxy.close();
    }

    @Override
    public String toString() {
        return "SharedTunnelClient{" + proxy + "}";
    }
}
