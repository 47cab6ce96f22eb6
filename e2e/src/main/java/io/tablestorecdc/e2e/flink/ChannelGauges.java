package io.tablestorecdc.e2e.flink;

import io.tablestorecdc.e2e.ProgressLine;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the source enumerator's channel gauges ({@code
 * channelsAssigned}, {@code channelsUnassigned}, {@code channelsFinished}) where the demo can read
 * them: the local job runs in this JVM. A source of several tables has each table's gauges (under
 * {@code table.<name>}); the counts are their sums.
 */
public final class ChannelGauges implements MetricReporter {

    static final String ASSIGNED = "channelsAssigned";
    static final String UNASSIGNED = "channelsUnassigned";
    static final String FINISHED = "channelsFinished";

    private static final Map<String, Map<Metric, Gauge<?>>> GAUGES = new ConcurrentHashMap<>();

    /** The enumerator's current counts, once it has registered its gauges. */
    static Optional<ProgressLine.Channels> current() {
        Optional<Long> open = value(ASSIGNED);
        Optional<Long> waiting = value(UNASSIGNED);
        Optional<Long> finished = value(FINISHED);
        if (open.isEmpty() || waiting.isEmpty() || finished.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ProgressLine.Channels(open.get(), waiting.get(), finished.get()));
    }

    private static Optional<Long> value(String name) {
        Map<Metric, Gauge<?>> gauges = GAUGES.getOrDefault(name, Map.of());
        if (gauges.isEmpty()) {
            return Optional.empty();
        }
        long sum = 0;
        for (Gauge<?> gauge : gauges.values()) {
            if (gauge.getValue() instanceof Number n) {
                sum += n.longValue();
            }
        }
        return Optional.of(sum);
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {
        GAUGES.clear();
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Gauge<?> gauge && isChannelGauge(name)) {
            GAUGES.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).put(metric, gauge);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        if (isChannelGauge(name)) {
            GAUGES.getOrDefault(name, new ConcurrentHashMap<>()).remove(metric);
        }
    }

    private static boolean isChannelGauge(String name) {
        return ASSIGNED.equals(name) || UNASSIGNED.equals(name) || FINISHED.equals(name);
    }

    /** Creates the reporter; named in {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ChannelGauges();
        }
    }
}
