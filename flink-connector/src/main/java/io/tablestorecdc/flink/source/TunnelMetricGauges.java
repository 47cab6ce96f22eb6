package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

/** Publishes the tunnel client's retry counters as Flink gauges (SDK proxies only). */
@Internal
public final class TunnelMetricGauges {

    private TunnelMetricGauges() {}

    /** Registers {@code tunnelRetries} and {@code tunnelFailedCalls}; returns {@code proxy}. */
    public static TunnelProxy register(TunnelProxy proxy, MetricGroup group) {
        if (proxy instanceof SdkTunnelProxy) {
            TunnelMetrics metrics = ((SdkTunnelProxy) proxy).metrics();
            group.gauge("tunnelRetries", metrics::retries);
            group.gauge("tunnelFailedCalls", metrics::failedCalls);
        }
        return proxy;
    }
}
