package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.types.StructType;

/**
 * Parts {@code throughput} and {@code ceilings}: each consumer drains the same 16-channel backlog
 * (or, for the in-memory ceilings, holds as many rows), once as a warm-up and then {@code runs}
 * times interleaved; the median run is reported, with its ratio to the raw SDK loop (throughput)
 * and each engine's ratio to its in-memory source (ceilings).
 */
final class ThroughputPart {

    private final ThroughputBenchmark bench;
    private final BenchSettings settings;

    ThroughputPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.settings = bench.settings();
    }

    /** One kind of consumer: how to run it the r-th time (r = -1 is the warm-up). */
    @FunctionalInterface
    private interface Consumer {
        Measurement drain(int run) throws Exception;
    }

    void run() throws Exception {
        int rows = settings.rows();
        say(
                "%nThroughput: %d rows, %d partitions, %d run(s), raw threads %d",
                rows, ThroughputBenchmark.PARTITIONS, settings.runs(), settings.rawThreads());
        BenchTable table = bench.table("bench16");
        table.create(ThroughputBenchmark.PARTITIONS, rows);
        Map<String, Consumer> consumers = consumers(table);
        say("wrote %d rows in %.1f s", rows, table.write(rows));
        Map<String, List<Measurement>> results = new LinkedHashMap<>();
        for (int r = -1; r < settings.runs(); r++) {
            for (Map.Entry<String, Consumer> c : consumers.entrySet()) {
                Measurement m = c.getValue().drain(r);
                say("  %s%s", r < 0 ? "warm-up: " : "", describe(m));
                check(m, rows);
                if (r >= 0) {
                    results.computeIfAbsent(m.consumer(), k -> new ArrayList<>()).add(m);
                }
            }
        }
        Map<String, Measurement> medians = medians(results);
        printTable(medians);
        bench.report("rows", rows);
        bench.report("partitions", ThroughputBenchmark.PARTITIONS);
        bench.report("runs", settings.runs());
        bench.report("rawThreads", settings.rawThreads());
        bench.report("throughput", throughputJson(results, medians));
        if (settings.runs("ceilings")) {
            bench.report("ceilings", ceilingsJson(medians));
        }
        bench.charts().throughput = medians;
    }

    /** The consumers in the order they run, with their tunnels created before the rows. */
    private Map<String, Consumer> consumers(BenchTable table) throws Exception {
        Map<String, Consumer> consumers = new LinkedHashMap<>();
        for (int r = -1; r < settings.runs(); r++) {
            table.createStreamTunnel("spark-" + r);
            table.createStreamTunnel("flink-" + r);
        }
        if (settings.runs("throughput")) {
            String rawTunnel = table.createStreamTunnel("raw");
            int threads = settings.rawThreads();
            RawReadLoop raw = new RawReadLoop(bench.tunnels(), threads, "raw");
            // Twice the threads: whether the loop above is bound by its thread count (the
            // engines overlap reading and processing in more threads than their parallelism).
            RawReadLoop wide =
                    new RawReadLoop(bench.tunnels(), threads * 2, "raw-" + threads * 2 + "t");
            consumers.put("raw", r -> raw.drain(rawTunnel));
            consumers.put("raw-wide", r -> wide.drain(rawTunnel));
        }
        SparkDrain spark = new SparkDrain(bench.spark(), bench.emulator());
        FlinkDrain flink = new FlinkDrain(bench.emulator());
        consumers.put("spark", r -> sparkRun(spark, table, r));
        consumers.put("flink", r -> flink.drain(table.name(), "flink-" + r, settings.rows()));
        if (settings.runs("ceilings")) {
            StructType schema = spark.reader(table.name(), "spark--1", Map.of()).schema();
            SparkMemoryDrain sparkMemory =
                    new SparkMemoryDrain(
                            bench.spark(), schema, ThroughputBenchmark.PARTITIONS, settings.rows());
            List<String> keys = new ArrayList<>(settings.rows());
            for (int i = 0; i < settings.rows(); i++) {
                keys.add(String.format(Locale.ROOT, "row-%09d", i));
            }
            consumers.put("spark-memory", r -> sparkMemory.drain());
            consumers.put("flink-memory", r -> flink.drainInMemory(keys));
        }
        return consumers;
    }

    private static Measurement sparkRun(SparkDrain spark, BenchTable table, int run)
            throws Exception {
        SparkDrain.Result result = spark.drain(table.name(), "spark-" + run, Map.of());
        // Where a Spark run's time goes: each batch's phases (ms).
        result.progress()
                .forEach(
                        p ->
                                say(
                                        "        batch %d: %d rows, %s",
                                        p.batchId(),
                                        p.numInputRows(),
                                        BatchOverhead.format(BatchOverhead.medians(List.of(p)))));
        return result.measurement();
    }

    private static void check(Measurement m, int rows) {
        if (m.records() != rows) {
            throw new IllegalStateException(
                    m.consumer() + " read " + m.records() + " records, expected " + rows);
        }
    }

    static String describe(Measurement m) {
        return String.format(
                Locale.ROOT,
                "%-12s %d records in %.2f s = %.0f rec/s (steady %.0f rec/s)",
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
                    List<Measurement> sorted = new ArrayList<>(runs);
                    sorted.sort(
                            (a, b) -> Double.compare(a.recordsPerSecond(), b.recordsPerSecond()));
                    medians.put(consumer, sorted.get(sorted.size() / 2));
                });
        return medians;
    }

    private static void printTable(Map<String, Measurement> medians) {
        Measurement raw = medians.get("raw");
        say(
                "%n%-12s %14s %16s %12s %14s",
                "consumer", "rec/s (whole)", "rec/s (steady)", "ratio/raw", "steady ratio");
        for (Measurement m : medians.values()) {
            say(
                    "%-12s %14.0f %16.0f %12s %14s",
                    m.consumer(),
                    m.recordsPerSecond(),
                    m.steadyRecordsPerSecond(),
                    raw == null ? "-" : ratio(m.recordsPerSecond(), raw.recordsPerSecond()),
                    raw == null ? "-" : ratio(m.steadyRecordsPerSecond(), raw.recordsPerSecond()));
        }
        Measurement sparkMemory = medians.get("spark-memory");
        if (sparkMemory != null) {
            say(
                    "spark / MemoryStream %s (steady %s); flink / in-memory %s (from first record"
                            + " %s)",
                    ratio(medians.get("spark"), sparkMemory, false),
                    ratio(medians.get("spark"), sparkMemory, true),
                    ratio(medians.get("flink"), medians.get("flink-memory"), false),
                    ratio(medians.get("flink"), medians.get("flink-memory"), true));
        }
    }

    private static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.2f", a / b);
    }

    private static String ratio(Measurement a, Measurement b, boolean steady) {
        return steady
                ? ratio(a.steadyRecordsPerSecond(), b.steadyRecordsPerSecond())
                : ratio(a.recordsPerSecond(), b.recordsPerSecond());
    }

    private static Map<String, Object> throughputJson(
            Map<String, List<Measurement>> results, Map<String, Measurement> medians) {
        Measurement raw = medians.get("raw");
        Map<String, Object> json = new LinkedHashMap<>();
        medians.forEach(
                (consumer, m) -> {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("medianRecordsPerSecond", Math.round(m.recordsPerSecond()));
                    c.put("medianSteadyRecordsPerSecond", Math.round(m.steadyRecordsPerSecond()));
                    if (raw != null) {
                        c.put("ratioToRaw", m.recordsPerSecond() / raw.recordsPerSecond());
                        c.put(
                                "steadyRatioToRaw",
                                m.steadyRecordsPerSecond() / raw.recordsPerSecond());
                    }
                    c.put("runsRecordsPerSecond", rates(results.get(consumer), false));
                    c.put("runsSteadyRecordsPerSecond", rates(results.get(consumer), true));
                    json.put(m.consumer(), c);
                });
        return json;
    }

    private static List<Long> rates(List<Measurement> runs, boolean steady) {
        return runs.stream()
                .map(m -> Math.round(steady ? m.steadyRecordsPerSecond() : m.recordsPerSecond()))
                .collect(Collectors.toList());
    }

    private static Map<String, Object> ceilingsJson(Map<String, Measurement> medians) {
        Measurement spark = medians.get("spark");
        Measurement flink = medians.get("flink");
        Measurement sparkMemory = medians.get("spark-memory");
        Measurement flinkMemory = medians.get("flink-memory");
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("sparkToMemoryStream", spark.recordsPerSecond() / sparkMemory.recordsPerSecond());
        json.put(
                "sparkSteadyToMemoryStreamSteady",
                spark.steadyRecordsPerSecond() / sparkMemory.steadyRecordsPerSecond());
        json.put("flinkToInMemory", flink.recordsPerSecond() / flinkMemory.recordsPerSecond());
        json.put(
                "flinkFromFirstRecordToInMemory",
                flink.steadyRecordsPerSecond() / flinkMemory.steadyRecordsPerSecond());
        return json;
    }
}
