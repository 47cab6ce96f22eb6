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
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The Spark driver's cost per micro-batch and how it grows with channels, from the progress events'
 * durations; meta-table and tunnel requests and meta rows written per batch, from the emulator's
 * counters; then an idle stream's cost per trigger.
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

    /** The driver's phases outside the tasks (addBatch) of a batch. */
    static final List<String> DRIVER_PHASES =
            List.of("latestOffset", "queryPlanning", "walCommit", "commitOffsets");

    private final SparkSession spark;
    private final SparkDrain drain;
    private final ServerCounters counters;

    BatchOverhead(SparkSession spark, SparkDrain drain, ServerCounters counters) {
        this.spark = spark;
        this.drain = drain;
        this.counters = counters;
    }

    /**
     * Median ms per phase over the batches with data after the first (which holds query start-up:
     * its driver time is reported on its own); per batch (medians of the differences between
     * consecutive progress events): table-API requests (the meta table), tunnel requests, of them
     * readrecords, and meta rows written; meta rows alive after the query.
     */
    record Figures(
            int channels,
            int rowsPerChannel,
            int batches,
            Map<String, Long> medianMs,
            long driverMs,
            long firstBatchDriverMs,
            double metaRequestsPerBatch,
            double tunnelRequestsPerBatch,
            double readRecordsPerBatch,
            double metaRowsPerBatch,
            long metaRowsAlive,
            Map<String, Double> requestsPerBatchByAction) {}

    /** What the emulator had counted when one progress event arrived. */
    private record Mark(long batchId, long rows, RequestCounts requests, long metaWritten) {}

    /** Drains {@code batches} batches of the table's {@code overhead} tunnel. */
    Figures measure(BenchTable table, int channels, int rowsPerChannel, int batches)
            throws Exception {
        return measure(
                Map.of("table.name", table.name()), "overhead", channels, rowsPerChannel, batches);
    }

    /** Drains {@code batches} batches of the source of the tables {@code selection} names. */
    Figures measure(
            Map<String, String> selection,
            String tunnel,
            int channels,
            int rowsPerChannel,
            int batches)
            throws Exception {
        int rows = channels * rowsPerChannel;
        long aliveBefore = counters.metaLiveRows();
        List<Mark> marks = new ArrayList<>();
        marks.add(mark(-1, 0));
        StreamingQueryListener listener = marker(marks);
        spark.streams().addListener(listener);
        List<StreamingQueryProgress> progress;
        try {
            progress =
                    drain.drain(
                                    selection,
                                    tunnel,
                                    Map.of(
                                            "max.rows.per.trigger",
                                            String.valueOf(Math.max(1, rows / batches))))
                            .progress();
        } finally {
            spark.streams().removeListener(listener);
        }
        List<StreamingQueryProgress> withData =
                progress.stream().filter(p -> p.numInputRows() > 0).toList();
        Map<String, Long> medians = medians(afterFirst(withData));
        Map<String, Long> first = medians(withData.subList(0, Math.min(1, withData.size())));
        List<Mark> deltas = deltas(marks);
        return new Figures(
                channels,
                rowsPerChannel,
                withData.size(),
                medians,
                DRIVER_PHASES.stream().mapToLong(medians::get).sum(),
                DRIVER_PHASES.stream().mapToLong(first::get).sum(),
                median(deltas, m -> m.requests().table()),
                median(deltas, m -> m.requests().tunnel()),
                median(deltas, m -> m.requests().get("tunnel/readrecords")),
                median(deltas, Mark::metaWritten),
                counters.metaLiveRows() - aliveBefore,
                byAction(deltas));
    }

    private Mark mark(long batchId, long rows) {
        return new Mark(batchId, rows, counters.requests(), counters.metaWrites().written());
    }

    private StreamingQueryListener marker(List<Mark> marks) {
        return new StreamingQueryListener() {
            @Override
            public void onQueryStarted(QueryStartedEvent event) {}

            @Override
            public void onQueryProgress(QueryProgressEvent event) {
                synchronized (marks) {
                    marks.add(mark(event.progress().batchId(), event.progress().numInputRows()));
                }
            }

            @Override
            public void onQueryTerminated(QueryTerminatedEvent event) {}
        };
    }

    /**
     * Per batch with data, what was counted since the previous progress event; the first batch's
     * share of query start-up is left out when there are later batches.
     */
    private static List<Mark> deltas(List<Mark> marks) {
        List<Mark> deltas = new ArrayList<>();
        synchronized (marks) {
            for (int i = 1; i < marks.size(); i++) {
                Mark m = marks.get(i);
                Mark before = marks.get(i - 1);
                if (m.rows() > 0) {
                    deltas.add(
                            new Mark(
                                    m.batchId(),
                                    m.rows(),
                                    m.requests().minus(before.requests()),
                                    m.metaWritten() - before.metaWritten()));
                }
            }
        }
        return afterFirst(deltas);
    }

    /** The batches after the first, when there are any (the first holds query start-up). */
    private static <T> List<T> afterFirst(List<T> batches) {
        return batches.size() > 1 ? batches.subList(1, batches.size()) : batches;
    }

    /** The median requests per batch of each action the batches made (meta table and tunnel). */
    private static Map<String, Double> byAction(List<Mark> deltas) {
        Map<String, Double> medians = new LinkedHashMap<>();
        if (deltas.isEmpty()) {
            return medians;
        }
        for (String action : deltas.get(0).requests().byAction().keySet()) {
            double median = median(deltas, m -> m.requests().get(action));
            if (median > 0) {
                medians.put(action, median);
            }
        }
        return medians;
    }

    private static double median(List<Mark> deltas, java.util.function.ToLongFunction<Mark> f) {
        long[] values = deltas.stream().mapToLong(f).sorted().toArray();
        return values.length == 0 ? Double.NaN : values[values.length / 2];
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

    /** An idle stream's cost: meta rows added, driver ms per trigger, and requests per trigger. */
    record Idle(
            int channels,
            int triggers,
            long metaRowsAdded,
            Map<String, Long> medianMs,
            double metaRequestsPerTrigger,
            double readRecordsPerTrigger) {}

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
        try {
            // The first triggers drain what the last batch left uncommitted; idleness counts after.
            List<StreamingQueryProgress> idle = awaitIdle(query, 3);
            long metaBefore = counters.metaWrites().written();
            RequestCounts before = counters.requests();
            int seen = idle.size();
            List<StreamingQueryProgress> after = awaitIdle(query, seen + triggers);
            RequestCounts asked = counters.requests().minus(before);
            long added = counters.metaWrites().written() - metaBefore;
            List<StreamingQueryProgress> measured = after.subList(seen, after.size());
            int n = measured.size();
            return new Idle(
                    channels,
                    n,
                    added,
                    medians(measured),
                    asked.table() / (double) n,
                    asked.get("tunnel/readrecords") / (double) n);
        } finally {
            query.stop();
        }
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
