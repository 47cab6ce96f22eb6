package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Part {@code overhead}: for each channel count, a table with that many partitions and a small
 * backlog; the Spark driver's time and the meta-table and tunnel requests per micro-batch, then the
 * Flink source's requests per checkpoint on the same table; then an idle Spark stream on the
 * smallest table of at least 16 channels (all the idle triggers) and on the largest (a tenth).
 */
final class OverheadPart {

    /** Few rows per channel above this many channels, so that 1024 channels stay affordable. */
    private static final int SMALL = 16;

    private static final String META_TABLE = "tablestore_cdc_meta";

    private final ThroughputBenchmark bench;
    private final ServerCounters counters;

    OverheadPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.counters = bench.emulator().counters(META_TABLE);
    }

    void run() throws Exception {
        List<Integer> channels = bench.settings().channels();
        SparkDrain drain = new SparkDrain(bench.spark(), bench.emulator());
        BatchOverhead spark = new BatchOverhead(bench.spark(), drain, counters);
        FlinkCheckpoints flink = new FlinkCheckpoints(bench.emulator(), counters);
        List<BatchOverhead.Figures> sparkFigures = new ArrayList<>();
        List<FlinkCheckpoints.Figures> flinkFigures = new ArrayList<>();
        say("%nOverhead per Spark micro-batch (medians over batches with data; ms):");
        for (int c : channels) {
            int batches = bench.settings().overheadBatches();
            // a batch reads at least one row of each channel
            int rowsPerChannel = Math.max(c <= SMALL ? 200 : 4, batches);
            BenchTable table = bench.table("scale" + c);
            table.create(c, (long) c * rowsPerChannel);
            table.createStreamTunnel("overhead");
            table.createStreamTunnel("flink-overhead");
            long start = System.nanoTime();
            table.write(c * rowsPerChannel);
            say("  %d channels: wrote %d rows in %.1f s", c, c * rowsPerChannel, since(start));
            start = System.nanoTime();
            BatchOverhead.Figures s = spark.measure(table, c, rowsPerChannel, batches);
            sparkFigures.add(s);
            print(s, since(start));
            if (bench.settings().overheadSparkOnly()) {
                continue;
            }
            start = System.nanoTime();
            FlinkCheckpoints.Figures f =
                    flink.measure(table.name(), "flink-overhead", c, (long) c * rowsPerChannel);
            flinkFigures.add(f);
            print(f, since(start));
        }
        if (bench.settings().overheadSparkOnly()) {
            bench.report(
                    "overhead",
                    Map.of(
                            "sparkPerBatch",
                            sparkFigures.stream().map(ThroughputBenchmark::record).toList()));
            bench.charts().sparkOverhead = sparkFigures;
            return;
        }
        List<BatchOverhead.Idle> idle = idle(spark, channels);
        say(
                "%nSparse stream: %d channels, %d of them taking changes (meta rows and tunnel"
                        + " checkpoints per batch / checkpoint, every snapshot full vs incremental):",
                SparseOverhead.CHANNELS, SparseOverhead.ACTIVE);
        List<SparseOverhead.Figures> sparse =
                new SparseOverhead(
                                bench.emulator(),
                                bench.spark(),
                                drain,
                                flink,
                                counters,
                                bench.table("sparse" + SparseOverhead.CHANNELS))
                        .run();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("sparkPerBatch", sparkFigures.stream().map(ThroughputBenchmark::record).toList());
        json.put(
                "flinkPerCheckpoint",
                flinkFigures.stream().map(ThroughputBenchmark::record).toList());
        json.put("sparkIdle", idle.stream().map(ThroughputBenchmark::record).toList());
        json.put("sparse", sparse.stream().map(ThroughputBenchmark::record).toList());
        bench.report("overhead", json);
        bench.charts().sparkOverhead = sparkFigures;
        bench.charts().flinkOverhead = flinkFigures;
    }

    private List<BatchOverhead.Idle> idle(BatchOverhead spark, List<Integer> channels)
            throws Exception {
        int triggers = bench.settings().idleTriggers();
        List<Integer> idleChannels = new ArrayList<>();
        channels.stream().filter(c -> c >= SMALL).findFirst().ifPresent(idleChannels::add);
        int largest = channels.stream().mapToInt(Integer::intValue).max().orElse(SMALL);
        if (!idleChannels.contains(largest)) {
            idleChannels.add(largest);
        }
        List<BatchOverhead.Idle> idle = new ArrayList<>();
        for (int c : idleChannels) {
            // An idle trigger costs about a second per 500 channels (the probes): the largest
            // table idles for a tenth of the triggers so that a full run stays affordable.
            int n = c > SMALL * 4 ? Math.max(10, triggers / 10) : triggers;
            BatchOverhead.Idle i = spark.idle("scale" + c, "overhead", c, n);
            say(
                    "Idle Spark stream, %d channels, %d triggers: meta rows added %d; per trigger"
                            + " %.2f meta requests, %.2f readrecords; median ms %s",
                    i.channels(),
                    i.triggers(),
                    i.metaRowsAdded(),
                    i.metaRequestsPerTrigger(),
                    i.readRecordsPerTrigger(),
                    BatchOverhead.format(i.medianMs()));
            idle.add(i);
        }
        return idle;
    }

    private static void print(BatchOverhead.Figures f, double seconds) {
        say(
                "  %4d channels (%d rows each), %d batches: driver outside tasks %d ms (first"
                        + " batch %d ms) [%s];"
                        + " per batch: %.0f meta requests, %.1f meta rows written, %.0f tunnel"
                        + " requests (%.0f readrecords); meta rows kept %d  (%.0f s)",
                f.channels(),
                f.rowsPerChannel(),
                f.batches(),
                f.driverMs(),
                f.firstBatchDriverMs(),
                BatchOverhead.format(f.medianMs()),
                f.metaRequestsPerBatch(),
                f.metaRowsPerBatch(),
                f.tunnelRequestsPerBatch(),
                f.readRecordsPerBatch(),
                f.metaRowsAlive(),
                seconds);
    }

    private static void print(FlinkCheckpoints.Figures f, double seconds) {
        say(
                "  %4d channels, Flink: %d checkpoints while reading: per checkpoint %.1f meta"
                        + " requests, %.1f meta rows written, %.1f tunnel checkpoints, %d ms"
                        + " (barrier at sink to complete); idle: %.1f meta requests, %.1f rows"
                        + "  (%.0f s)",
                f.channels(),
                f.activeCheckpoints(),
                f.metaRequestsPerCheckpoint(),
                f.metaRowsPerCheckpoint(),
                f.tunnelCheckpointsPerCheckpoint(),
                f.medianCheckpointMs(),
                f.idleMetaRequestsPerCheckpoint(),
                f.idleMetaRowsPerCheckpoint(),
                seconds);
    }

    private static double since(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
