package io.tablestorecdc.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The Spark driver's cost per micro-batch and how it grows with channels, from the progress events'
 * durations, and meta-table rows written per batch; then an idle stream's cost per trigger.
 */
final class BatchOverhead {

    static final String[] PHASES = {
        "latestOffset",
        "queryPlanning",
        "walCommit",
        "addBatch",
        "commitOffsets",
        "triggerExecution"
    };
    private static final int ROWS_PER_CHANNEL = 200;
    private static final int BATCHES = 4;

    private final SparkSession spark;
    private final SparkDrain drain;
    private final MetaWrites meta;

    BatchOverhead(SparkSession spark, SparkDrain drain, MetaWrites meta) {
        this.spark = spark;
        this.drain = drain;
        this.meta = meta;
    }

    /** Median ms per phase over the batches with data, and meta rows written per batch. */
    record Figures(
            int channels, int batches, Map<String, Long> medianMs, double metaRowsPerBatch) {}

    /** Drains about {@link #BATCHES} batches of a {@code channels}-partition table. */
    Figures measure(BenchTable table, int channels) throws Exception {
        int rows = channels * ROWS_PER_CHANNEL;
        table.create(channels, rows);
        table.createStreamTunnel("overhead");
        table.write(rows);
        long metaBefore = meta.written();
        List<StreamingQueryProgress> progress =
                drain
                        .drain(
                                table.name(),
                                "overhead",
                                Map.of("max.rows.per.trigger", String.valueOf(rows / BATCHES)))
                        .progress()
                        .stream()
                        .filter(p -> p.numInputRows() > 0)
                        .toList();
        double metaPerBatch = (meta.written() - metaBefore) / (double) progress.size();
        return new Figures(channels, progress.size(), medians(progress), metaPerBatch);
    }

    static Map<String, Long> medians(List<StreamingQueryProgress> progress) {
        Map<String, Long> medians = new LinkedHashMap<>();
        for (String phase : PHASES) {
            long[] values =
                    progress.stream()
                            .mapToLong(p -> p.durationMs().getOrDefault(phase, 0L))
                            .sorted()
                            .toArray();
            medians.put(phase, values.length == 0 ? 0 : values[values.length / 2]);
        }
        return medians;
    }

    /** An idle stream's cost: meta rows added and driver ms per trigger. */
    record Idle(int channels, int triggers, long metaRowsAdded, Map<String, Long> medianMs) {}

    /** Runs a 100 ms ProcessingTime query over a drained tunnel for {@code triggers} triggers. */
    Idle idle(String table, String tunnel, int channels, int triggers) throws Exception {
        Path checkpoint = Files.createTempDirectory("tablestore-cdc-bench-idle");
        spark.conf().set("spark.sql.streaming.noDataProgressEventInterval", "0");
        StreamingQuery query =
                drain.reader(table, tunnel, Map.of())
                        .writeStream()
                        .format("noop")
                        .trigger(Trigger.ProcessingTime(100))
                        .option("checkpointLocation", checkpoint.toString())
                        .start();
        // The first triggers drain the backlog; idleness is counted after that.
        List<StreamingQueryProgress> idle = awaitIdle(query, 3);
        long metaBefore = meta.written();
        int seen = idle.size();
        List<StreamingQueryProgress> after = awaitIdle(query, seen + triggers);
        long added = meta.written() - metaBefore;
        query.stop();
        List<StreamingQueryProgress> measured = after.subList(seen, after.size());
        return new Idle(channels, measured.size(), added, medians(measured));
    }

    private static List<StreamingQueryProgress> awaitIdle(StreamingQuery query, int count)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            List<StreamingQueryProgress> idle =
                    Arrays.stream(query.recentProgress())
                            .filter(p -> p.numInputRows() == 0)
                            .toList();
            if (idle.size() >= count) {
                return new ArrayList<>(idle);
            }
            if (!query.isActive()) {
                throw new IllegalStateException("The idle query stopped: " + query.exception());
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("No " + count + " idle triggers in 3 minutes");
    }

    static String format(Map<String, Long> ms) {
        StringBuilder s = new StringBuilder();
        ms.forEach((k, v) -> s.append(String.format(Locale.ROOT, "%s=%d ", k, v)));
        return s.toString().trim();
    }
}
