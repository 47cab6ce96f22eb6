package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.flink.compat.WriterInitContextSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.spark.sql.ForeachWriter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * End-to-end latency under a steady write load: from a PutRow's acknowledgement to the row's
 * arrival at the sink, where the sink is the first user code that sees the row (Spark: a {@code
 * foreach} writer in the task; Flink: the sink's {@code invoke}, at emit, whatever the checkpoint
 * interval). A 16-channel table per engine; a 2 s warm-up (query or job start) is left out.
 */
final class LatencyUnderLoad {

    static final int TRIGGER_MS = 200;
    private static final int PARTITIONS = 16;
    private static final double WARM_UP_SECONDS = 2;
    // Sinks run in this JVM (local[2], the Flink mini cluster): they report through this map.
    private static final Map<String, Long> ARRIVALS = new ConcurrentHashMap<>();

    private final BenchEmulator emulator;
    private final SyncClient sync;
    private final TunnelClient tunnels;
    private final int rate;
    private final int seconds;

    LatencyUnderLoad(
            BenchEmulator emulator, SyncClient sync, TunnelClient tunnels, int rate, int seconds) {
        this.emulator = emulator;
        this.sync = sync;
        this.tunnels = tunnels;
        this.rate = rate;
        this.seconds = seconds;
    }

    /** Percentiles (ms) of ack-to-sink latency of the rows written after the warm-up. */
    record Figures(
            String engine,
            int rows,
            double achievedRate,
            double p50Ms,
            double p90Ms,
            double p99Ms,
            double maxMs) {}

    Figures spark(SparkSession spark) throws Exception {
        BenchTable table = table("latency_spark");
        Path checkpoint = Files.createTempDirectory("tablestore-cdc-bench-latency");
        StreamingQuery query =
                new SparkDrain(spark, emulator)
                        .reader(table.name(), "latency", Map.of())
                        .writeStream()
                        .foreach(new ArrivalWriter())
                        .trigger(Trigger.ProcessingTime(TRIGGER_MS))
                        .option("checkpointLocation", checkpoint.toString())
                        .start();
        try {
            return underLoad("spark", table, query::isActive);
        } finally {
            query.stop();
        }
    }

    Figures flink() throws Exception {
        BenchTable table = table("latency_flink");
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(2));
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        env.fromSource(
                        FlinkDrain.source(emulator, table.name(), "latency"),
                        WatermarkStrategy.noWatermarks(),
                        "changes")
                .sinkTo(new ArrivalSink())
                .name("arrival sink");
        JobClient job = env.executeAsync("tablestore-cdc bench latency");
        try {
            return underLoad("flink", table, () -> !job.getJobStatus().get().isTerminalState());
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
            job.getJobExecutionResult().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
        }
    }

    private BenchTable table(String name) {
        BenchTable table = new BenchTable(emulator, sync, tunnels, name);
        table.create(PARTITIONS, keySpace());
        table.createStreamTunnel("latency");
        return table;
    }

    private long keySpace() {
        long rows = Math.round(rate * (seconds + WARM_UP_SECONDS)) + 1;
        return rows % 7919 == 0 ? rows + 1 : rows;
    }

    /** Something that says whether the consumer still runs. */
    @FunctionalInterface
    private interface Running {
        boolean get() throws Exception;
    }

    private Figures underLoad(String engine, BenchTable table, Running running) throws Exception {
        ARRIVALS.clear();
        SteadyWriter writer = new SteadyWriter(sync, table.name(), keySpace());
        awaitArrivals(writer.write(rate, WARM_UP_SECONDS), running);
        long start = System.nanoTime();
        String[] keys = writer.write(rate, seconds);
        double achieved = keys.length / ((System.nanoTime() - start) / 1e9);
        awaitArrivals(keys, running);
        double[] ms =
                Arrays.stream(keys)
                        .mapToDouble(k -> (ARRIVALS.get(k) - writer.ackNanos(k)) / 1e6)
                        .sorted()
                        .toArray();
        return new Figures(
                engine,
                keys.length,
                achieved,
                percentile(ms, 50),
                percentile(ms, 90),
                percentile(ms, 99),
                ms[ms.length - 1]);
    }

    private static double percentile(double[] sorted, double p) {
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static void awaitArrivals(String[] keys, Running running) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        for (String key : keys) {
            while (!ARRIVALS.containsKey(key)) {
                if (System.nanoTime() > deadline || !running.get()) {
                    throw new IllegalStateException(
                            "Row " + key + " did not reach the sink within 2 minutes");
                }
                Thread.sleep(5);
            }
        }
    }

    private static void arrived(String key) {
        ARRIVALS.putIfAbsent(key, System.nanoTime());
    }

    /** Spark's sink: notes when each row reaches the task's writer. */
    private static final class ArrivalWriter extends ForeachWriter<Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean open(long partitionId, long epochId) {
            return true;
        }

        @Override
        public void process(Row row) {
            arrived(row.getAs("id"));
        }

        @Override
        public void close(Throwable error) {}
    }

    /** Flink's sink: notes when each key is written to it. */
    private static final class ArrivalSink extends WriterInitContextSink<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(String key, Context context) {
                    arrived(key);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
