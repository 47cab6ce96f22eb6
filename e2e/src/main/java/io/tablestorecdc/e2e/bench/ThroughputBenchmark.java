package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * Read throughput of the Spark and Flink sources against the raw SDK readRecords loop, measured
 * side by side in one JVM on the same backlog (16 partitions of the embedded emulator), so that the
 * ratios mean something on a shared, noisy machine; then the Spark driver's time per micro-batch
 * for 1, 16 and 64 channels and an idle stream's cost per trigger (docs/benchmarks.md).
 *
 * <p>Usage: {@code ThroughputBenchmark [rows] [runs] [rawThreads]} (defaults 200000, 3, 2). Writes
 * {@code target/bench/throughput.json} and prints a table.
 */
public final class ThroughputBenchmark {

    private static final int PARTITIONS = 16;
    private static final int IDLE_TRIGGERS = 50;

    private final TablestoreEmulator emulator;
    private final SyncClient sync;
    private final TunnelClient tunnels;

    private ThroughputBenchmark(TablestoreEmulator emulator) {
        this.emulator = emulator;
        this.sync =
                new SyncClient(
                        emulator.endpoint(),
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        emulator.instanceName());
        this.tunnels =
                new TunnelClient(
                        emulator.endpoint(),
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        emulator.instanceName());
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int rawThreads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            ThroughputBenchmark bench = new ThroughputBenchmark(emulator);
            SparkSession spark = SparkDrain.session();
            try {
                bench.run(spark, rows, runs, rawThreads);
            } finally {
                spark.stop();
                bench.tunnels.shutdown();
                bench.sync.shutdown();
            }
        }
        System.exit(0); // Flink and Spark leave non-daemon threads behind
    }

    private void run(SparkSession spark, int rows, int runs, int rawThreads) throws Exception {
        say(
                "ThroughputBenchmark: %d rows, %d partitions, %d run(s), raw threads %d, %d CPUs,"
                        + " java %s",
                rows,
                PARTITIONS,
                runs,
                rawThreads,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        BenchTable table = new BenchTable(emulator, sync, tunnels, "bench16");
        table.create(PARTITIONS, rows);
        String rawTunnel = table.createStreamTunnel("raw");
        for (int r = -1; r < runs; r++) { // run -1 is the unreported JIT warm-up
            table.createStreamTunnel("spark-" + r);
            table.createStreamTunnel("flink-" + r);
        }
        say("wrote %d rows in %.1f s", rows, table.write(rows));
        Map<String, List<Measurement>> results =
                measure(spark, table, rows, runs, rawTunnel, rawThreads);
        Map<String, Measurement> medians = medians(results);
        printTable(medians);
        String overhead = overhead(spark);
        writeJson(rows, runs, rawThreads, results, medians, overhead);
    }

    /** Part 2: Spark driver time per batch for 1, 16, 64 channels, then an idle stream. */
    private String overhead(SparkSession spark) throws Exception {
        MetaWrites meta = new MetaWrites("tablestore_cdc_meta");
        emulator.tables().addListener(meta);
        SparkDrain drain = new SparkDrain(spark, emulator);
        BatchOverhead overhead = new BatchOverhead(spark, drain, meta);
        List<String> json = new ArrayList<>();
        say("%nSpark per-batch driver time (median ms over batches with data):");
        for (int channels : new int[] {1, 16, 64}) {
            BenchTable table = new BenchTable(emulator, sync, tunnels, "overhead" + channels);
            BatchOverhead.Figures f = overhead.measure(table, channels);
            say(
                    "  %4d channels, %d batches: %s; meta rows written per batch %.1f",
                    channels,
                    f.batches(),
                    BatchOverhead.format(f.medianMs()),
                    f.metaRowsPerBatch());
            json.add(
                    String.format(
                            Locale.ROOT,
                            "{\"channels\": %d, \"batches\": %d, \"medianMs\": %s,"
                                    + " \"metaRowsWrittenPerBatch\": %.1f}",
                            channels,
                            f.batches(),
                            jsonMap(f.medianMs()),
                            f.metaRowsPerBatch()));
        }
        BatchOverhead.Idle idle = overhead.idle("overhead16", "overhead", 16, IDLE_TRIGGERS);
        say(
                "Idle stream, 16 channels, %d triggers: meta rows added %d; per trigger %s",
                idle.triggers(), idle.metaRowsAdded(), BatchOverhead.format(idle.medianMs()));
        String idleJson =
                String.format(
                        Locale.ROOT,
                        "{\"channels\": %d, \"triggers\": %d, \"metaRowsAdded\": %d,"
                                + " \"medianMsPerTrigger\": %s}",
                        idle.channels(),
                        idle.triggers(),
                        idle.metaRowsAdded(),
                        jsonMap(idle.medianMs()));
        return "  \"sparkBatchOverhead\": [\n    "
                + String.join(",\n    ", json)
                + "\n  ],\n  \"sparkIdle\": "
                + idleJson
                + "\n";
    }

    private static String jsonMap(Map<String, Long> ms) {
        return ms.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\": " + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private Map<String, List<Measurement>> measure(
            SparkSession spark,
            BenchTable table,
            int rows,
            int runs,
            String rawTunnel,
            int rawThreads)
            throws Exception {
        RawReadLoop raw = new RawReadLoop(tunnels, rawThreads, "raw");
        // Twice the threads: whether the loop above is bound by its thread count (the engines
        // overlap reading and processing in more threads than their parallelism).
        RawReadLoop rawWide =
                new RawReadLoop(tunnels, rawThreads * 2, "raw-" + rawThreads * 2 + "t");
        SparkDrain sparkDrain = new SparkDrain(spark, emulator);
        FlinkDrain flinkDrain = new FlinkDrain(emulator);
        // One unreported run of each first, so that JIT compilation does not land in run 0.
        say("warm-up: %s", describe(raw.drain(rawTunnel)));
        say("warm-up: %s", describe(rawWide.drain(rawTunnel)));
        say(
                "warm-up: %s",
                describe(sparkDrain.drain(table.name(), "spark--1", Map.of()).measurement()));
        say("warm-up: %s", describe(flinkDrain.drain(table.name(), "flink--1", rows)));
        Map<String, List<Measurement>> results = new LinkedHashMap<>();
        for (int r = 0; r < runs; r++) {
            add(results, raw.drain(rawTunnel), rows);
            add(results, rawWide.drain(rawTunnel), rows);
            SparkDrain.Result sparkRun = sparkDrain.drain(table.name(), "spark-" + r, Map.of());
            add(results, sparkRun.measurement(), rows);
            // Where a Spark run's time goes: each batch's phases (ms).
            sparkRun.progress()
                    .forEach(
                            p ->
                                    say(
                                            "        batch %d: %d rows, %s",
                                            p.batchId(),
                                            p.numInputRows(),
                                            BatchOverhead.format(
                                                    BatchOverhead.medians(List.of(p)))));
            add(results, flinkDrain.drain(table.name(), "flink-" + r, rows), rows);
        }
        return results;
    }

    private static void add(Map<String, List<Measurement>> results, Measurement m, int rows) {
        say("  %s", describe(m));
        if (m.records() != rows) {
            throw new IllegalStateException(
                    m.consumer() + " read " + m.records() + " records, expected " + rows);
        }
        results.computeIfAbsent(m.consumer(), k -> new ArrayList<>()).add(m);
    }

    private static String describe(Measurement m) {
        return String.format(
                Locale.ROOT,
                "%-5s %d records in %.2f s = %.0f rec/s (steady %.0f rec/s)",
                m.consumer(),
                m.records(),
                m.nanos() / 1e9,
                m.recordsPerSecond(),
                m.steadyRecordsPerSecond());
    }

    /** The run with the median whole-run rate, per consumer. */
    private static Map<String, Measurement> medians(Map<String, List<Measurement>> results) {
        Map<String, Measurement> medians = new LinkedHashMap<>();
        results.forEach(
                (consumer, runs) -> {
                    Measurement[] sorted =
                            runs.stream()
                                    .sorted(
                                            (a, b) ->
                                                    Double.compare(
                                                            a.recordsPerSecond(),
                                                            b.recordsPerSecond()))
                                    .toArray(Measurement[]::new);
                    medians.put(consumer, sorted[sorted.length / 2]);
                });
        return medians;
    }

    private static void printTable(Map<String, Measurement> medians) {
        Measurement raw = medians.get("raw");
        say(
                "%n%-8s %14s %16s %12s %14s",
                "consumer", "rec/s (whole)", "rec/s (steady)", "ratio/raw", "steady ratio");
        medians.values()
                .forEach(
                        m ->
                                say(
                                        "%-8s %14.0f %16.0f %12.2f %14.2f",
                                        m.consumer(),
                                        m.recordsPerSecond(),
                                        m.steadyRecordsPerSecond(),
                                        m.recordsPerSecond() / raw.recordsPerSecond(),
                                        m.steadyRecordsPerSecond() / raw.recordsPerSecond()));
    }

    private static void writeJson(
            int rows,
            int runs,
            int rawThreads,
            Map<String, List<Measurement>> results,
            Map<String, Measurement> medians,
            String overhead)
            throws Exception {
        double raw = medians.get("raw").recordsPerSecond();
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"date\": \"").append(Instant.now()).append("\",\n");
        json.append(
                String.format(
                        Locale.ROOT,
                        "  \"rows\": %d, \"partitions\": %d, \"runs\": %d, \"rawThreads\": %d, \"cpus\": %d,%n",
                        rows,
                        PARTITIONS,
                        runs,
                        rawThreads,
                        Runtime.getRuntime().availableProcessors()));
        json.append("  \"throughput\": {\n");
        json.append(
                medians.values().stream()
                        .map(m -> consumerJson(m, results.get(m.consumer()), raw))
                        .collect(Collectors.joining(",\n")));
        json.append("\n  },\n").append(overhead).append("}\n");
        Path out = Path.of("target", "bench", "throughput.json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, json.toString());
        say("%nwrote %s", out.toAbsolutePath());
    }

    private static String consumerJson(Measurement median, List<Measurement> runs, double raw) {
        String all =
                runs.stream()
                        .map(m -> String.format(Locale.ROOT, "%.0f", m.recordsPerSecond()))
                        .collect(Collectors.joining(", "));
        String steady =
                runs.stream()
                        .map(m -> String.format(Locale.ROOT, "%.0f", m.steadyRecordsPerSecond()))
                        .collect(Collectors.joining(", "));
        return String.format(
                Locale.ROOT,
                "    \"%s\": {\"medianRecordsPerSecond\": %.0f, \"medianSteadyRecordsPerSecond\": %.0f,"
                        + " \"ratioToRaw\": %.3f, \"steadyRatioToRaw\": %.3f,"
                        + " \"runsRecordsPerSecond\": [%s], \"runsSteadyRecordsPerSecond\": [%s]}",
                median.consumer(),
                median.recordsPerSecond(),
                median.steadyRecordsPerSecond(),
                median.recordsPerSecond() / raw,
                median.steadyRecordsPerSecond() / raw,
                all,
                steady);
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
    }
}
