package io.tablestorecdc.e2e.bench;

import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the job's {@code lastCheckpointDuration} gauge (the
 * JobManager's: from the checkpoint's trigger, the source enumerators' snapshots included, to its
 * completion) where the benchmark can read it: the local job runs in this JVM.
 */
public final class CheckpointDurations implements MetricReporter {

    private static final String NAME = "lastCheckpointDuration";
    private static final AtomicReference<Gauge<?>> LAST = new AtomicReference<>();

    /** The duration of the job's last completed checkpoint, once the gauge is registered. */
    static Optional<Long> lastMillis() {
        return Optional.ofNullable(LAST.get())
                .map(Gauge::getValue)
                .filter(Number.class::isInstance)
                .map(v -> ((Number) v).longValue());
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {
        LAST.set(null);
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Gauge<?> gauge && NAME.equals(name)) {
            LAST.set(gauge);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        if (NAME.equals(name)) {
            LAST.compareAndSet((Gauge<?>) metric, null);
        }
    }

    /** Creates the reporter; named in {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new CheckpointDurations();
        }
    }
}
