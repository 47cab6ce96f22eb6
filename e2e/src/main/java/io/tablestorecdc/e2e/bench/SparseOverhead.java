package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The sparse case of part {@code overhead}: a table of many partitions of which only a few take
 * changes, read by a Spark query with a 1 s trigger and by a Flink job with a checkpoint a second,
 * each once with every meta snapshot written in full ({@code meta.full.snapshot.every} = 1, the
 * cost before incremental snapshots) and once with the default. Per batch / checkpoint: meta rows
 * written and deleted, tunnel {@code checkpoint} requests.
 */
final class SparseOverhead {

    static final int CHANNELS = 1024;
    static final int ACTIVE = 8;
    private static final long SPAN = CHANNELS * 4L;
    private static final int RETENTION = 10;
    private static final long WRITE_EVERY_MS = 100;
    private static final int SECONDS = 30;

    private final BenchEmulator endpoint;
    private final SparkSession spark;
    private final SparkDrain drain;
    private final FlinkCheckpoints flink;
    private final ServerCounters counters;
    private final BenchTable table;
    private final List<Integer> active;
    private final AtomicLong serial = new AtomicLong();

    SparseOverhead(
            BenchEmulator endpoint,
            SparkSession spark,
            SparkDrain drain,
            FlinkCheckpoints flink,
            ServerCounters counters,
            BenchTable table) {
        this.endpoint = endpoint;
        this.spark = spark;
        this.drain = drain;
        this.flink = flink;
        this.counters = counters;
        this.table = table;
        this.active =
                IntStream.range(0, ACTIVE).map(i -> i * (CHANNELS / ACTIVE) + 3).boxed().toList();
    }

    /**
     * One consumer's figures: per batch (Spark) or per checkpoint (Flink) while changes flow, after
     * the first one, which holds the consumer's start (each channel's adoption record and first
     * snapshot entry); {@code metaRowsWrittenPerBatchWithStart} includes it.
     */
    record Figures(
            String engine,
            int fullSnapshotEvery,
            int batches,
            double metaRowsWrittenPerBatchWithStart,
            double metaRowsWrittenPerBatch,
            double metaRowsDeletedPerBatch,
            double medianMetaRowsWrittenPerBatch,
            double tunnelCheckpointsPerBatch,
            double metaRequestsPerBatch,
            double restoreReadMs,
            long restoreRangeReads) {}

    List<Figures> run() throws Exception {
        table.create(CHANNELS, SPAN);
        List<Figures> figures = new ArrayList<>();
        for (int every : new int[] {1, 64}) {
            figures.add(spark(every));
            say("  sparse: %s", figures.get(figures.size() - 1));
        }
        for (int every : new int[] {1, 64}) {
            figures.add(flink(every));
            say("  sparse: %s", figures.get(figures.size() - 1));
        }
        return figures;
    }

    /** Counters when one progress event arrived. */
    private record Mark(long rows, RequestCounts requests, long written, long deleted) {}

    private Mark mark(long rows) {
        ServerCounters.MetaWrites meta = counters.metaWrites();
        return new Mark(rows, counters.requests(), meta.written(), meta.deleted());
    }

    private Figures spark(int every) throws Exception {
        String tunnel = "sparse-spark-" + every;
        String tunnelId = table.createStreamTunnel(tunnel);
        List<Mark> marks = new ArrayList<>();
        StreamingQueryListener listener =
                new StreamingQueryListener() {
                    @Override
                    public void onQueryStarted(QueryStartedEvent event) {}

                    @Override
                    public void onQueryProgress(QueryProgressEvent event) {
                        synchronized (marks) {
                            marks.add(mark(event.progress().numInputRows()));
                        }
                    }

                    @Override
                    public void onQueryTerminated(QueryTerminatedEvent event) {}
                };
        spark.streams().addListener(listener);
        Path checkpoint = Files.createTempDirectory("tablestore-cdc-bench-sparse");
        StreamingQuery query =
                drain.reader(
                                table.name(),
                                tunnel,
                                Map.of(
                                        "meta.full.snapshot.every",
                                        String.valueOf(every),
                                        "meta.retention.batches",
                                        String.valueOf(RETENTION)))
                        .writeStream()
                        .format("noop")
                        .trigger(Trigger.ProcessingTime(1000))
                        .option("checkpointLocation", checkpoint.toString())
                        .start();
        try {
            awaitProgress(marks, 1);
            long written = writeSteadily();
            awaitRows(marks, written);
        } finally {
            query.stop();
            spark.streams().removeListener(listener);
        }
        List<Mark> withData = new ArrayList<>();
        synchronized (marks) {
            for (int i = 1; i < marks.size(); i++) {
                Mark m = marks.get(i);
                Mark before = marks.get(i - 1);
                if (m.rows() > 0) {
                    withData.add(
                            new Mark(
                                    m.rows(),
                                    m.requests().minus(before.requests()),
                                    m.written() - before.written(),
                                    m.deleted() - before.deleted()));
                }
            }
        }
        // the first batch with data holds the tunnel's start (every channel's first snapshot)
        List<Mark> steady = withData.size() > 1 ? withData.subList(1, withData.size()) : withData;
        int n = steady.size();
        Restore restore = restore(tunnelId);
        return new Figures(
                "spark",
                every,
                n,
                withData.stream().mapToLong(Mark::written).sum() / (double) withData.size(),
                steady.stream().mapToLong(Mark::written).sum() / (double) n,
                steady.stream().mapToLong(Mark::deleted).sum() / (double) n,
                steady.stream().mapToLong(Mark::written).sorted().skip(n / 2).findFirst().orElse(0),
                steady.stream().mapToLong(m -> m.requests().get("tunnel/checkpoint")).sum()
                        / (double) n,
                steady.stream().mapToLong(m -> m.requests().table()).sum() / (double) n,
                restore.medianMs(),
                restore.rangeReads());
    }

    private record Restore(double medianMs, long rangeReads) {}

    /**
     * What a restart reads: the newest committed snapshot, by a store that holds nothing in memory
     * (median of 5 reads over the SDK), and the range reads one such read takes.
     */
    private Restore restore(String tunnelId) {
        TablestoreEndpoint at =
                new TablestoreEndpoint(
                        endpoint.endpoint(),
                        endpoint.instanceName(),
                        TablestoreCredentials.of(
                                endpoint.accessKeyId(), endpoint.accessKeySecret()));
        try (SdkMetaTableClient client =
                SdkMetaTableClient.connect(at, SdkMetaTableClient.DEFAULT_TABLE_NAME)) {
            LoggedBatch newest =
                    new MetaTable(client)
                            .tunnel(tunnelId).batchLog().stream()
                                    .max(Comparator.comparingLong(LoggedBatch::sequence))
                                    .orElseThrow();
            long[] nanos = new long[5];
            long ranges = 0;
            for (int i = 0; i < nanos.length; i++) {
                long before = counters.requests().get("GetRange");
                long start = System.nanoTime();
                new MetaTable(client).tunnel(tunnelId).read(newest.token());
                nanos[i] = System.nanoTime() - start;
                ranges = counters.requests().get("GetRange") - before;
            }
            Arrays.sort(nanos);
            return new Restore(nanos[nanos.length / 2] / 1e6, ranges);
        }
    }

    private Figures flink(int every) throws Exception {
        String tunnel = "sparse-flink-" + every;
        table.createStreamTunnel(tunnel);
        long rows = (long) ACTIVE * SECONDS * (1000 / WRITE_EVERY_MS);
        Thread writer =
                new Thread(
                        () -> {
                            try {
                                writeSteadily();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "sparse-writer");
        writer.start();
        try {
            FlinkCheckpoints.Figures f = flink.measure(table.name(), tunnel, CHANNELS, rows, every);
            return new Figures(
                    "flink",
                    every,
                    f.activeCheckpoints(),
                    f.metaRowsPerCheckpoint(),
                    f.steadyMetaRowsPerCheckpoint(),
                    f.metaRowsDeletedPerCheckpoint(),
                    f.medianMetaRowsPerCheckpoint(),
                    f.tunnelCheckpointsPerCheckpoint(),
                    f.metaRequestsPerCheckpoint(),
                    Double.NaN,
                    0);
        } finally {
            writer.join(TimeUnit.MINUTES.toMillis(1));
        }
    }

    /** One row into each active partition every 100 ms for {@link #SECONDS}; returns the rows. */
    private long writeSteadily() throws InterruptedException {
        long rounds = SECONDS * 1000 / WRITE_EVERY_MS;
        long next = System.nanoTime();
        for (long i = 0; i < rounds; i++) {
            table.writeInto(active, CHANNELS, SPAN, serial.incrementAndGet());
            next += TimeUnit.MILLISECONDS.toNanos(WRITE_EVERY_MS);
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        return rounds * ACTIVE;
    }

    private static void awaitProgress(List<Mark> marks, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            synchronized (marks) {
                if (marks.size() >= count) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("The sparse query made no progress in 3 minutes");
    }

    private static void awaitRows(List<Mark> marks, long rows) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            synchronized (marks) {
                if (marks.stream().mapToLong(Mark::rows).sum() >= rows) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("The sparse query did not read " + rows + " rows");
    }
}
