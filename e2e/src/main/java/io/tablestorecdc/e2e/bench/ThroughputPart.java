package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.spark.sql.types.StructType;

/**
 * Parts {@code throughput} and {@code ceilings}: each consumer drains the same 16-channel backlog
 * (or, for the in-memory ceilings, holds as many rows), once as a warm-up and then {@code runs}
 * times interleaved; the median run is reported, with its ratio to the raw SDK loop (throughput)
 * and each engine's ratio to its in-memory source (ceilings). Around each drain the CPU time is
 * split into the emulator server's and the consumer's (see {@link CpuClock}); consumers that see
 * their records arrive also report the rate between their 10 % and 90 % record.
 */
final class ThroughputPart {

    private final ThroughputBenchmark bench;
    private final BenchSettings settings;

    ThroughputPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.settings = bench.settings();
    }

    /**
     * One kind of consumer: how to run it the r-th time (r = -1 is the warm-up), counting the
     * records into {@code window} where it sees them arrive.
     */
    @FunctionalInterface
    private interface Consumer {
        Measurement drain(int run, CountWindow window) throws Exception;
    }

    /** The consumer of the second ceiling: raw's requests through the connectors' path. */
    static final String RAW_BYTES = "raw-bytes";

    static final String FLINK_RECORD = "flink-record";

    void run() throws Exception {
        int rows = settings.rows();
        say(
                "%nThroughput: %d rows, %d partitions, %d run(s), raw threads %d",
                rows, ThroughputBenchmark.PARTITIONS, settings.runs(), settings.rawThreads());
        BenchTable table = bench.table("bench16");
        table.create(ThroughputBenchmark.PARTITIONS, rows);
        Map<String, Consumer> consumers = consumers(table);
        say("wrote %d rows in %.1f s", rows, table.write(rows));
        Map<String, List<ConsumerRun>> results = drainAll(consumers, rows);
        Map<String, ConsumerFigures> figures = new LinkedHashMap<>();
        results.forEach((consumer, runs) -> figures.put(consumer, ConsumerFigures.of(runs)));
        printTable(figures);
        printPairedRatios(results);
        bench.report("rows", rows);
        bench.report("partitions", ThroughputBenchmark.PARTITIONS);
        bench.report("runs", settings.runs());
        bench.report("rawThreads", settings.rawThreads());
        bench.report("throughput", throughputJson(results, figures));
        if (settings.runs("ceilings")) {
            bench.report("ceilings", ceilingsJson(figures));
        }
        Map<String, Measurement> medians = new LinkedHashMap<>();
        figures.forEach((consumer, f) -> medians.put(consumer, f.median()));
        bench.charts().throughput = medians;
        bench.charts().steadyRatios = steadyRatios(figures);
    }

    /** The chart's start-up-free ratios, where both sides ran. */
    private static Map<String, Double> steadyRatios(Map<String, ConsumerFigures> figures) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        ConsumerFigures raw = figures.get("raw");
        if (raw == null) {
            return ratios;
        }
        ConsumerFigures spark = figures.get("spark");
        if (spark != null) {
            ratios.put(
                    "Spark steady\n/ raw SDK loop",
                    spark.median().steadyRecordsPerSecond() / raw.median().recordsPerSecond());
        }
        ConsumerFigures flink = figures.get("flink");
        if (flink != null) {
            flink.windowRatioTo(raw).ifPresent(r -> ratios.put("Flink 10-90 %\n/ raw 10-90 %", r));
        }
        ConsumerFigures bytes = figures.get(RAW_BYTES);
        if (bytes != null && spark != null) {
            ratios.put(
                    "Spark steady\n/ raw-bytes",
                    spark.median().steadyRecordsPerSecond() / bytes.median().recordsPerSecond());
        }
        if (bytes != null && flink != null) {
            flink.windowRatioTo(bytes)
                    .ifPresent(r -> ratios.put("Flink 10-90 %\n/ raw-bytes 10-90 %", r));
        }
        return ratios;
    }

    /** The warm-up round, then {@code runs} rounds of every consumer; the reported runs. */
    private Map<String, List<ConsumerRun>> drainAll(Map<String, Consumer> consumers, int rows)
            throws Exception {
        Map<String, List<ConsumerRun>> results = new LinkedHashMap<>();
        for (int r = -1; r < settings.runs(); r++) {
            for (Consumer consumer : consumers.values()) {
                ConsumerRun run = measure(consumer, r, rows);
                say("  %s%s", r < 0 ? "warm-up: " : "", describe(run));
                check(run.measurement(), rows);
                if (r >= 0) {
                    results.computeIfAbsent(run.consumer(), k -> new ArrayList<>()).add(run);
                }
            }
        }
        return results;
    }

    /** One drain, with the JVM's and the emulator server's CPU sampled around it. */
    private ConsumerRun measure(Consumer consumer, int run, int rows) throws Exception {
        ServerCpu server = bench.emulator().serverCpu();
        CountWindow window = new CountWindow(rows, server);
        CpuClock cpu = CpuClock.start(server);
        Measurement m = consumer.drain(run, window);
        CpuUse used = cpu.stop();
        return new ConsumerRun(m, window.span(), used);
    }

    /** The consumers in the order they run, with their tunnels created before the rows. */
    private Map<String, Consumer> consumers(BenchTable table) throws Exception {
        Map<String, Consumer> consumers = new LinkedHashMap<>();
        for (int r = -1; r < settings.runs(); r++) {
            table.createStreamTunnel("spark-" + r);
            table.createStreamTunnel("flink-" + r);
            table.createStreamTunnel("flink-record-" + r);
        }
        if (settings.runs("throughput")) {
            String rawTunnel = table.createStreamTunnel("raw");
            int threads = settings.rawThreads();
            RawReadLoop raw = new RawReadLoop(bench.tunnels(), threads, "raw");
            // Twice the threads: whether the loop above is bound by its thread count (the
            // engines overlap reading and processing in more threads than their parallelism).
            RawReadLoop wide =
                    new RawReadLoop(bench.tunnels(), threads * 2, "raw-" + threads * 2 + "t");
            // The same requests through the connectors' request path, records left undecoded.
            RawBytesReadLoop bytes =
                    new RawBytesReadLoop(
                            bench.emulator().connection().tablestoreEndpoint(), threads, RAW_BYTES);
            consumers.put("raw", (r, window) -> raw.drain(rawTunnel, window));
            consumers.put("raw-wide", (r, window) -> wide.drain(rawTunnel, window));
            consumers.put(RAW_BYTES, (r, window) -> bytes.drain(rawTunnel, window));
        }
        SparkDrain spark = new SparkDrain(bench.spark(), bench.emulator());
        FlinkDrain flink = new FlinkDrain(bench.emulator());
        // Spark's noop sink does not show records arriving: its window stays empty.
        consumers.put("spark", (r, window) -> sparkRun(spark, table, r));
        consumers.put(
                "flink",
                (r, window) ->
                        flink.drainRows(table.name(), "flink-" + r, settings.rows(), window));
        // A deserializer of the user's own: every change materialised as a ChangeRecord first.
        consumers.put(
                FLINK_RECORD,
                (r, window) ->
                        flink.drain(
                                FLINK_RECORD,
                                table.name(),
                                "flink-record-" + r,
                                settings.rows(),
                                window));
        if (settings.runs("ceilings")) {
            StructType schema = spark.reader(table.name(), "spark--1", Map.of()).schema();
            SparkMemoryDrain sparkMemory =
                    new SparkMemoryDrain(
                            bench.spark(), schema, ThroughputBenchmark.PARTITIONS, settings.rows());
            List<String> keys = new ArrayList<>(settings.rows());
            for (int i = 0; i < settings.rows(); i++) {
                keys.add(String.format(Locale.ROOT, "row-%09d", i));
            }
            consumers.put("spark-memory", (r, window) -> sparkMemory.drain());
            consumers.put("flink-memory", (r, window) -> flink.drainInMemory(keys, window));
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

    static String describe(ConsumerRun run) {
        Measurement m = run.measurement();
        return String.format(
                Locale.ROOT,
                "%-12s %d records in %.2f s = %.0f rec/s (steady %.0f, 10-90%% window %s);"
                        + " CPU us/record server %.2f, consumer %.2f (in the window %s, %s)",
                m.consumer(),
                m.records(),
                m.nanos() / 1e9,
                m.recordsPerSecond(),
                m.steadyRecordsPerSecond(),
                rate(run.windowRecordsPerSecond()),
                run.serverMicrosPerRecord(),
                run.consumerMicrosPerRecord(),
                micros(run.windowServerMicrosPerRecord()),
                micros(run.windowConsumerMicrosPerRecord()));
    }

    private static final String RATES = "%-12s %12s %12s %12s %10s %12s %12s";
    private static final String CPU = "%-12s %10s %10s %10s %10s %10s %10s";

    private void printTable(Map<String, ConsumerFigures> figures) {
        ConsumerFigures raw = figures.get("raw");
        say(
                "%n" + RATES,
                "consumer",
                "rec/s whole",
                "rec/s steady",
                "rec/s 10-90%",
                "ratio/raw",
                "steady ratio",
                "window ratio");
        for (ConsumerFigures f : figures.values()) {
            Measurement m = f.median();
            say(
                    RATES,
                    m.consumer(),
                    rate(m.recordsPerSecond()),
                    rate(m.steadyRecordsPerSecond()),
                    rate(f.windowRecordsPerSecond()),
                    raw == null
                            ? "-"
                            : ratio(m.recordsPerSecond(), raw.median().recordsPerSecond()),
                    raw == null
                            ? "-"
                            : ratio(m.steadyRecordsPerSecond(), raw.median().recordsPerSecond()),
                    raw == null ? "-" : ratio(f.windowRatioTo(raw)));
        }
        printCpuTable(figures, raw);
        printCeilings(figures);
    }

    /** CPU per record, whole drain and 10-90 % window: the emulator server's and the rest's. */
    private void printCpuTable(Map<String, ConsumerFigures> figures, ConsumerFigures raw) {
        boolean child = settings.inChildProcess();
        String server = child ? "the emulator child process" : "the emulator's HTTP threads";
        String consumer = child ? "the benchmark JVM" : "the rest of the JVM, GC and JIT included";
        say(
                "%nCPU us per record (server = %s; consumer = %s; cpu ratio = raw's consumer CPU"
                        + " / this one's):",
                server, consumer);
        say(CPU, "", "whole:", "", "", "10-90%:", "", "");
        say(CPU, "consumer", "server", "consumer", "cpu ratio", "server", "consumer", "cpu ratio");
        for (ConsumerFigures f : figures.values()) {
            say(
                    CPU,
                    f.median().consumer(),
                    micros(f.serverMicrosPerRecord()),
                    micros(f.consumerMicrosPerRecord()),
                    raw == null ? "-" : ratio(f.consumerCpuRatioTo(raw), 1),
                    micros(f.windowServerMicrosPerRecord()),
                    micros(f.windowConsumerMicrosPerRecord()),
                    raw == null ? "-" : ratio(f.windowConsumerCpuRatioTo(raw)));
        }
    }

    private static void printCeilings(Map<String, ConsumerFigures> figures) {
        ConsumerFigures sparkMemory = figures.get("spark-memory");
        if (sparkMemory == null) {
            return;
        }
        ConsumerFigures spark = figures.get("spark");
        ConsumerFigures flink = figures.get("flink");
        ConsumerFigures flinkMemory = figures.get("flink-memory");
        say(
                "spark / MemoryStream %s (steady %s); flink / in-memory %s (from first record"
                        + " %s, 10-90%% window %s)",
                ratio(spark.median(), sparkMemory.median(), false),
                ratio(spark.median(), sparkMemory.median(), true),
                ratio(flink.median(), flinkMemory.median(), false),
                ratio(flink.median(), flinkMemory.median(), true),
                ratio(flink.windowRatioTo(flinkMemory)));
    }

    private static String rate(double recordsPerSecond) {
        return String.format(Locale.ROOT, "%.0f", recordsPerSecond);
    }

    private static String rate(OptionalDouble recordsPerSecond) {
        return recordsPerSecond.isPresent() ? rate(recordsPerSecond.getAsDouble()) : "-";
    }

    private static String micros(double micros) {
        return String.format(Locale.ROOT, "%.2f", micros);
    }

    private static String micros(OptionalDouble micros) {
        return micros.isPresent() ? micros(micros.getAsDouble()) : "-";
    }

    private static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.2f", a / b);
    }

    private static String ratio(OptionalDouble ratio) {
        return ratio.isPresent() ? ratio(ratio.getAsDouble(), 1) : "-";
    }

    private static String ratio(Measurement a, Measurement b, boolean steady) {
        return steady
                ? ratio(a.steadyRecordsPerSecond(), b.steadyRecordsPerSecond())
                : ratio(a.recordsPerSecond(), b.recordsPerSecond());
    }

    private static List<Double> boxed(double[] values) {
        return Arrays.stream(values).boxed().toList();
    }

    /**
     * Each consumer's ratio to raw, and to raw-bytes, round by round: the spread a median hides.
     */
    private static void printPairedRatios(Map<String, List<ConsumerRun>> results) {
        printPairedRatios(results, "raw");
        printPairedRatios(results, RAW_BYTES);
    }

    private static void printPairedRatios(Map<String, List<ConsumerRun>> results, String base) {
        List<ConsumerRun> raw = results.get(base);
        if (raw == null || raw.size() < 2) {
            return;
        }
        say("%nratio to %s of the same round (whole run; steady):", base);
        results.forEach(
                (consumer, runs) -> {
                    if (!consumer.startsWith("raw")) {
                        PairedRatios paired = PairedRatios.of(runs, raw);
                        say(
                                "  %-12s %s; %s",
                                consumer,
                                PairedRatios.describe(paired.whole()),
                                PairedRatios.describe(paired.steady()));
                    }
                });
    }

    private static Map<String, Object> throughputJson(
            Map<String, List<ConsumerRun>> results, Map<String, ConsumerFigures> figures) {
        ConsumerFigures raw = figures.get("raw");
        Map<String, Object> json = new LinkedHashMap<>();
        figures.forEach(
                (consumer, f) -> {
                    Measurement m = f.median();
                    List<ConsumerRun> runs = results.get(consumer);
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("medianRecordsPerSecond", Math.round(m.recordsPerSecond()));
                    c.put("medianSteadyRecordsPerSecond", Math.round(m.steadyRecordsPerSecond()));
                    if (raw != null) {
                        c.put("ratioToRaw", m.recordsPerSecond() / raw.median().recordsPerSecond());
                        c.put(
                                "steadyRatioToRaw",
                                m.steadyRecordsPerSecond() / raw.median().recordsPerSecond());
                    }
                    List<ConsumerRun> rawRuns = results.get("raw");
                    if (rawRuns != null && !consumer.equals("raw")) {
                        PairedRatios paired = PairedRatios.of(runs, rawRuns);
                        c.put("runsRatioToRawOfTheRound", boxed(paired.whole()));
                        c.put("runsSteadyRatioToRawOfTheRound", boxed(paired.steady()));
                    }
                    List<ConsumerRun> bytesRuns = results.get(RAW_BYTES);
                    if (bytesRuns != null && !consumer.startsWith("raw")) {
                        PairedRatios paired = PairedRatios.of(runs, bytesRuns);
                        c.put("runsSteadyRatioToRawBytesOfTheRound", boxed(paired.steady()));
                        c.put(
                                "medianSteadyRatioToRawBytesOfTheRound",
                                ConsumerFigures.median(paired.steady()));
                    }
                    c.put("runsRecordsPerSecond", rates(runs, false));
                    c.put("runsSteadyRecordsPerSecond", rates(runs, true));
                    cpuJson(c, f, raw, runs);
                    windowJson(c, f, raw, runs);
                    json.put(m.consumer(), c);
                });
        return json;
    }

    /** The 10–90 % window, for consumers that see their records arrive. */
    private static void windowJson(
            Map<String, Object> c, ConsumerFigures f, ConsumerFigures raw, List<ConsumerRun> runs) {
        if (f.windowRecordsPerSecond().isEmpty()) {
            return;
        }
        c.put("medianWindowRecordsPerSecond", Math.round(f.windowRecordsPerSecond().getAsDouble()));
        if (raw != null) {
            f.windowRatioTo(raw).ifPresent(r -> c.put("windowRatioToRaw", r));
        }
        c.put("runsWindowRecordsPerSecond", windowRates(runs));
        c.put(
                "medianWindowServerMicrosPerRecord",
                f.windowServerMicrosPerRecord().orElse(Double.NaN));
        c.put(
                "medianWindowConsumerMicrosPerRecord",
                f.windowConsumerMicrosPerRecord().orElse(Double.NaN));
        if (raw != null) {
            f.windowConsumerCpuRatioTo(raw).ifPresent(r -> c.put("windowConsumerCpuRatioToRaw", r));
        }
        c.put(
                "runsWindowServerMicrosPerRecord",
                figures(runs, ConsumerRun::windowServerMicrosPerRecord));
        c.put(
                "runsWindowConsumerMicrosPerRecord",
                figures(runs, ConsumerRun::windowConsumerMicrosPerRecord));
    }

    /** CPU per record, split into the emulator's server threads and the rest (the consumer). */
    private static void cpuJson(
            Map<String, Object> c, ConsumerFigures f, ConsumerFigures raw, List<ConsumerRun> runs) {
        c.put("medianServerMicrosPerRecord", f.serverMicrosPerRecord());
        c.put("medianConsumerMicrosPerRecord", f.consumerMicrosPerRecord());
        if (raw != null) {
            c.put("consumerCpuRatioToRaw", f.consumerCpuRatioTo(raw));
        }
        c.put(
                "runsServerMicrosPerRecord",
                runs.stream().map(ConsumerRun::serverMicrosPerRecord).toList());
        c.put(
                "runsConsumerMicrosPerRecord",
                runs.stream().map(ConsumerRun::consumerMicrosPerRecord).toList());
    }

    /** Each run's window rate; null (JSON null) where a run has no window. */
    private static List<Long> windowRates(List<ConsumerRun> runs) {
        List<Long> rates = new ArrayList<>();
        for (ConsumerRun run : runs) {
            OptionalDouble rate = run.windowRecordsPerSecond();
            rates.add(rate.isPresent() ? Math.round(rate.getAsDouble()) : null);
        }
        return rates;
    }

    /** One figure per run; NaN (JSON null) where a run has none. */
    private static List<Double> figures(
            List<ConsumerRun> runs, Function<ConsumerRun, OptionalDouble> figure) {
        return runs.stream().map(r -> figure.apply(r).orElse(Double.NaN)).toList();
    }

    private static List<Long> rates(List<ConsumerRun> runs, boolean steady) {
        return runs.stream()
                .map(ConsumerRun::measurement)
                .map(m -> Math.round(steady ? m.steadyRecordsPerSecond() : m.recordsPerSecond()))
                .collect(Collectors.toList());
    }

    private static Map<String, Object> ceilingsJson(Map<String, ConsumerFigures> figures) {
        Measurement spark = figures.get("spark").median();
        Measurement flink = figures.get("flink").median();
        Measurement sparkMemory = figures.get("spark-memory").median();
        Measurement flinkMemory = figures.get("flink-memory").median();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("sparkToMemoryStream", spark.recordsPerSecond() / sparkMemory.recordsPerSecond());
        json.put(
                "sparkSteadyToMemoryStreamSteady",
                spark.steadyRecordsPerSecond() / sparkMemory.steadyRecordsPerSecond());
        json.put("flinkToInMemory", flink.recordsPerSecond() / flinkMemory.recordsPerSecond());
        json.put(
                "flinkFromFirstRecordToInMemory",
                flink.steadyRecordsPerSecond() / flinkMemory.steadyRecordsPerSecond());
        figures.get("flink")
                .windowRatioTo(figures.get("flink-memory"))
                .ifPresent(r -> json.put("flinkWindowToInMemoryWindow", r));
        return json;
    }
}
