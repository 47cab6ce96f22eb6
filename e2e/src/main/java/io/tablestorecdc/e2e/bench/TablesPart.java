package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * Part {@code tables}: one Spark query of many tables ({@code tables} tables of {@code
 * tablePartitions} partitions each, selected by {@code table.pattern}) next to one query of one
 * table with as many partitions in all: the driver's time and the meta rows per micro-batch, the
 * first batch (which opens every table's consumer), the driver's threads and its live heap while
 * the query runs. Then the same for one Flink job of the many tables against one of the one table:
 * the checkpoints' time and meta traffic, the first record, threads and heap.
 */
final class TablesPart {

    private static final String TUNNEL = "tables";
    private static final String FLINK_TUNNEL = "tables-flink";

    private final ThroughputBenchmark bench;
    private final ServerCounters counters;

    TablesPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.counters = bench.emulator().counters("tablestore_cdc_meta");
    }

    /**
     * One source's figures.
     *
     * @param source {@code many tables} or {@code one table}
     * @param tables the tables the source reads
     * @param batch the per-batch figures, as the overhead part measures them
     * @param peakThreads the most threads the benchmark's JVM ran during the query
     * @param liveHeapMb the JVM's heap after a full GC in the middle of the query
     */
    record Figures(
            String source,
            int tables,
            BatchOverhead.Figures batch,
            int peakThreads,
            long liveHeapMb) {}

    /**
     * One Flink source's figures.
     *
     * @param source {@code many tables} or {@code one table}
     * @param tables the tables the source reads
     * @param checkpoints the per-checkpoint figures, as the checkpoint part measures them
     * @param firstRecordMs from the job's submission to its first record (every table's consumer
     *     opened)
     * @param peakThreads the most threads the benchmark's JVM ran during the job
     * @param liveHeapMb the JVM's heap after a full GC once every record was read, job running
     */
    record FlinkFigures(
            String source,
            int tables,
            FlinkCheckpoints.Figures checkpoints,
            long firstRecordMs,
            int peakThreads,
            long liveHeapMb) {}

    void run() throws Exception {
        int tables = bench.settings().tables();
        int partitions = bench.settings().tablePartitions();
        int batches = bench.settings().overheadBatches();
        int rowsPerChannel = Math.max(4, batches);
        int channels = tables * partitions;
        SparkDrain drain = new SparkDrain(bench.spark(), bench.emulator());
        BatchOverhead overhead = new BatchOverhead(bench.spark(), drain, counters);
        say(
                "%nMany tables in one Spark query: %d tables of %d partitions against one table of"
                        + " %d (medians over batches with data; ms):",
                tables, partitions, channels);

        String prefix = "many" + tables + "x" + partitions + "_";
        long start = System.nanoTime();
        for (int t = 0; t < tables; t++) {
            BenchTable table = bench.table(prefix + t);
            table.create(partitions, (long) partitions * rowsPerChannel);
            table.createStreamTunnel(TUNNEL);
            table.createStreamTunnel(FLINK_TUNNEL);
            table.write(partitions * rowsPerChannel);
        }
        BenchTable one = bench.table("one" + channels);
        one.create(channels, (long) channels * rowsPerChannel);
        one.createStreamTunnel(TUNNEL);
        one.createStreamTunnel(FLINK_TUNNEL);
        one.write(channels * rowsPerChannel);
        say("  wrote %d rows into each source in %.1f s", channels * rowsPerChannel, since(start));

        List<Figures> figures = new ArrayList<>();
        figures.add(
                measure(
                        "many tables",
                        tables,
                        Map.of("table.pattern", prefix + "[0-9]+"),
                        overhead,
                        channels,
                        rowsPerChannel,
                        batches));
        figures.add(
                measure(
                        "one table",
                        1,
                        Map.of("table.name", one.name()),
                        overhead,
                        channels,
                        rowsPerChannel,
                        batches));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("tables", tables);
        json.put("tablePartitions", partitions);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Figures f : figures) {
            Map<String, Object> row = ThroughputBenchmark.record(f);
            row.put("batch", ThroughputBenchmark.record(f.batch()));
            rows.add(row);
        }
        json.put("sources", rows);

        say(
                "%nMany tables in one Flink source: %d tables of %d partitions against one table of"
                        + " %d (per completed checkpoint while reading; ms):",
                tables, partitions, channels);
        long expected = (long) channels * rowsPerChannel;
        List<Map<String, Object>> flink = new ArrayList<>();
        for (FlinkFigures f :
                List.of(
                        measureFlink(
                                "many tables",
                                tables,
                                FlinkDrain.builder(bench.emulator(), null, FLINK_TUNNEL)
                                        .setTablePattern(prefix + "[0-9]+"),
                                channels,
                                expected,
                                () -> {
                                    for (int t = 0; t < tables; t++) {
                                        bench.table(prefix + t)
                                                .writeInto(
                                                        allOf(partitions),
                                                        partitions,
                                                        (long) partitions * rowsPerChannel,
                                                        1);
                                    }
                                },
                                tables),
                        measureFlink(
                                "one table",
                                1,
                                FlinkDrain.builder(bench.emulator(), one.name(), FLINK_TUNNEL),
                                channels,
                                expected,
                                () -> {
                                    List<Integer> all = allOf(channels);
                                    for (int from = 0; from < channels; from += 200) {
                                        one.writeInto(
                                                all.subList(from, Math.min(channels, from + 200)),
                                                channels,
                                                (long) channels * rowsPerChannel,
                                                1);
                                    }
                                },
                                (channels + 199) / 200))) {
            Map<String, Object> row = ThroughputBenchmark.record(f);
            row.put("checkpoints", ThroughputBenchmark.record(f.checkpoints()));
            flink.add(row);
        }
        json.put("flinkSources", flink);
        bench.report("tables", json);
    }

    private static List<Integer> allOf(int partitions) {
        List<Integer> all = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            all.add(p);
        }
        return all;
    }

    private FlinkFigures measureFlink(
            String source,
            int tables,
            TablestoreCdcSourceBuilder<String> builder,
            int channels,
            long expected,
            Runnable oneRowPerChannel,
            int writeRequests)
            throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.resetPeakThreadCount();
        AtomicLong liveHeap = new AtomicLong();
        long start = System.nanoTime();
        FlinkCheckpoints checkpoints =
                new FlinkCheckpoints(bench.emulator(), counters)
                        .thenChanges(oneRowPerChannel, channels, writeRequests)
                        .whenDrained(
                                () -> {
                                    System.gc();
                                    liveHeap.set(
                                            ManagementFactory.getMemoryMXBean()
                                                    .getHeapMemoryUsage()
                                                    .getUsed());
                                });
        FlinkCheckpoints.Figures c =
                checkpoints.measure(builder.build(), FLINK_TUNNEL, channels, expected);
        FlinkFigures f =
                new FlinkFigures(
                        source,
                        tables,
                        c,
                        checkpoints.firstRecordMs(),
                        threads.getPeakThreadCount(),
                        liveHeap.get() / (1024 * 1024));
        say(
                "  %-11s %4d channels: first record after %d ms; checkpoint median %d ms (trigger"
                        + " to complete, all checkpoints), %d ms (barrier at the sink to complete,"
                        + " %d while reading); per checkpoint while reading %.1f meta rows written,"
                        + " %.0f meta requests, %.1f tunnel checkpoints; idle %.0f meta requests;"
                        + " a row in every channel once running: %.1f meta requests, %.1f rows per"
                        + " checkpoint %s; peak threads %d, live heap %d MB  (%.0f s)",
                source,
                channels,
                f.firstRecordMs(),
                c.medianFullCheckpointMs(),
                c.medianCheckpointMs(),
                c.activeCheckpoints(),
                c.metaRowsPerCheckpoint(),
                c.metaRequestsPerCheckpoint(),
                c.tunnelCheckpointsPerCheckpoint(),
                c.idleMetaRequestsPerCheckpoint(),
                c.changedMetaRequestsPerCheckpoint(),
                c.changedMetaRowsPerCheckpoint(),
                c.changedRequestsByAction(),
                f.peakThreads(),
                f.liveHeapMb(),
                since(start));
        return f;
    }

    private Figures measure(
            String source,
            int tables,
            Map<String, String> selection,
            BatchOverhead overhead,
            int channels,
            int rowsPerChannel,
            int batches)
            throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.resetPeakThreadCount();
        AtomicLong liveHeap = new AtomicLong();
        StreamingQueryListener midway = midwayHeap(batches / 2, liveHeap);
        bench.spark().streams().addListener(midway);
        long start = System.nanoTime();
        BatchOverhead.Figures batch;
        try {
            batch = overhead.measure(selection, TUNNEL, channels, rowsPerChannel, batches);
        } finally {
            bench.spark().streams().removeListener(midway);
        }
        Figures f =
                new Figures(
                        source,
                        tables,
                        batch,
                        threads.getPeakThreadCount(),
                        liveHeap.get() / (1024 * 1024));
        say(
                "  %-11s %4d channels, %d batches: driver outside tasks %d ms (first batch %d ms)"
                        + " [%s]; per batch %.1f meta rows written, %.0f tunnel requests; peak"
                        + " threads %d, live heap %d MB  (%.0f s)%n    requests per batch: %s",
                source,
                channels,
                batch.batches(),
                batch.driverMs(),
                batch.firstBatchDriverMs(),
                BatchOverhead.format(batch.medianMs()),
                batch.metaRowsPerBatch(),
                batch.tunnelRequestsPerBatch(),
                f.peakThreads(),
                f.liveHeapMb(),
                since(start),
                batch.requestsPerBatchByAction());
        return f;
    }

    /** At the {@code batch}th progress event, a full GC and the heap it leaves. */
    private static StreamingQueryListener midwayHeap(int batch, AtomicLong liveHeap) {
        return new StreamingQueryListener() {
            private int seen;

            @Override
            public void onQueryStarted(QueryStartedEvent event) {}

            @Override
            public void onQueryProgress(QueryProgressEvent event) {
                if (event.progress().numInputRows() > 0 && ++seen == Math.max(1, batch)) {
                    System.gc();
                    liveHeap.set(
                            ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
                }
            }

            @Override
            public void onQueryTerminated(QueryTerminatedEvent event) {}
        };
    }

    private static double since(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
