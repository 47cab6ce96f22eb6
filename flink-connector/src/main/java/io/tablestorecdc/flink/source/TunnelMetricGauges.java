package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Publishes the tunnel clients' retry counters as Flink gauges {@code tunnelRetries} and {@code
 * tunnelFailedCalls}: registered once per metric group, summed over every proxy tracked there (a
 * reader creates a new split reader, and so a new proxy, whenever its fetcher restarts).
 */
@Internal
public final class TunnelMetricGauges {

    private final List<TunnelMetrics> tracked = new CopyOnWriteArrayList<>();

    private TunnelMetricGauges() {}

    /** Registers the gauges on {@code group}; call once per group. */
    public static TunnelMetricGauges registerOn(MetricGroup group) {
        TunnelMetricGauges gauges = new TunnelMetricGauges();
        group.gauge("tunnelRetries", gauges.sum(TunnelMetrics::retries));
        group.gauge("tunnelFailedCalls", gauges.sum(TunnelMetrics::failedCalls));
        return gauges;
    }

    /** Counts {@code proxy}'s calls in the gauges (SDK proxies only); returns {@code proxy}. */
    public TunnelProxy track(TunnelProxy proxy) {
        if (proxy instanceof SdkTunnelProxy) {
            tracked.add(((SdkTunnelProxy) proxy).metrics());
        }
        return proxy;
    }

    private Gauge<Long> sum(ToLongFunction<TunnelMetrics> counter) {
        return () -> tracked.stream().mapToLong(counter).sum();
    }
}
