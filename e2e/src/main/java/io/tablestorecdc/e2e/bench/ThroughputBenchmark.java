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
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The benchmark (docs/benchmarks.md), in selectable parts, on an emulator embedded in its JVM or,
 * with {@code emulator=process}, in a child JVM (to tell the connectors' own cost from contention
 * with the emulator for heap, GC, JIT and safepoints): read throughput of the Spark and Flink
 * sources against the raw SDK readRecords loop and against each engine over an in-memory source of
 * the same rows; the per-batch (Spark) and per-checkpoint (Flink) overhead for growing channel
 * counts and an idle stream; latency under a steady write load; a reader's peak heap for two
 * backlogs. Ratios are measured side by side so that they mean something on a shared, noisy
 * machine.
 *
 * <p>Usage: {@code ThroughputBenchmark [key=value ...]} (see {@link BenchSettings}). Writes {@code
 * throughput.json}, the results tables of docs/benchmarks.md over it ({@code results.md}, see
 * {@link ResultTables}) and PNG charts to {@code target/bench}, and prints tables.
 */
public final class ThroughputBenchmark {

    static final int PARTITIONS = 16;

    private final BenchEmulator emulator;
    private final BenchSettings settings;
    private final SyncClient sync;
    private final TunnelClient tunnels;
    private final Map<String, Object> report = new LinkedHashMap<>();
    private final ChartData charts = new ChartData();
    private SparkSession spark;

    private ThroughputBenchmark(BenchEmulator emulator, BenchSettings settings) {
        this.emulator = emulator;
        this.settings = settings;
        // No write retry: a batch applied twice would put its records twice into the change
        // stream, and every part counts records.
        this.sync = emulator.newSyncClient();
        this.tunnels = emulator.newTunnelClient();
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.parse(args);
        try (BenchEmulator emulator =
                settings.inChildProcess() ? ChildEmulator.start() : EmbeddedEmulator.start()) {
            ThroughputBenchmark bench = new ThroughputBenchmark(emulator, settings);
            try {
                bench.run();
            } finally {
                bench.close();
            }
        }
        System.exit(0); // Flink and Spark leave non-daemon threads behind
    }

    private void run() throws Exception {
        long start = System.nanoTime();
        say(
                "ThroughputBenchmark: parts %s, %d CPUs, java %s, %s",
                settings.parts(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                emulator);
        report.put("date", Instant.now().toString());
        report.put("cpus", Runtime.getRuntime().availableProcessors());
        report.put("java", System.getProperty("java.version"));
        report.put("parts", List.copyOf(settings.parts()));
        report.put("emulator", emulator.mode());
        if (settings.runs("throughput") || settings.runs("ceilings")) {
            new ThroughputPart(this).run();
        }
        if (settings.runs("overhead")) {
            new OverheadPart(this).run();
        }
        if (settings.runs("latency")) {
            latency();
        }
        if (settings.runs("memory")) {
            memory();
        }
        if (settings.runs("sink")) {
            new SinkPart(this).run();
        }
        if (settings.runs("lookup")) {
            new LookupPart(this).run();
        }
        if (settings.runs("scan")) {
            new ScanPart(this).run();
        }
        if (settings.runs("changelog")) {
            new ChangelogPart(this).run();
        }
        if (settings.runs("tables")) {
            new TablesPart(this).run();
        }
        report.put("elapsedSeconds", (System.nanoTime() - start) / 1e9);
        writeResults();
        say("%nall parts took %.0f s", (System.nanoTime() - start) / 1e9);
    }

    private void latency() throws Exception {
        LatencyUnderLoad load =
                new LatencyUnderLoad(
                        emulator, sync, tunnels, settings.latencyRate(), settings.latencySeconds());
        say(
                "%nLatency, PutRow acknowledged to sink, %d rows/s for %d s, 16 channels:",
                settings.latencyRate(), settings.latencySeconds());
        List<LatencyUnderLoad.Figures> figures = List.of(load.spark(spark()), load.flink());
        List<Map<String, Object>> json = new ArrayList<>();
        for (LatencyUnderLoad.Figures f : figures) {
            say(
                    "  %-5s %d rows at %.0f rows/s: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms",
                    f.engine(),
                    f.rows(),
                    f.achievedRate(),
                    f.p50Ms(),
                    f.p90Ms(),
                    f.p99Ms(),
                    f.maxMs());
            json.add(record(f));
        }
        charts.latency = figures;
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("sparkTriggerMs", LatencyUnderLoad.TRIGGER_MS);
        part.put("measuredAt", "spark: foreach writer in the task; flink: sink invoke (at emit)");
        part.put("engines", json);
        report.put("latency", part);
    }

    private void memory() throws Exception {
        say(
                "%nReader heap, one channel of %d KB rows, reader JVM -Xmx%s:",
                settings.memoryRowKb(), settings.memoryXmx());
        List<ReaderMemory.Figures> figures =
                new ReaderMemory(emulator, inProcess("memory"), sync, tunnels)
                        .measure(
                                settings.memoryBacklogs(),
                                settings.memoryRowKb(),
                                settings.memoryXmx());
        List<Map<String, Object>> json = new ArrayList<>();
        for (ReaderMemory.Figures f : figures) {
            say(
                    "  backlog %5d rows (%4.0f MB), pages of %d records: live heap %.1f MB at"
                            + " start, peak %.1f MB (reader +%.1f MB); largest heap before a GC"
                            + " %.1f MB of %.0f MB",
                    f.backlogRows(),
                    f.backlogMb(),
                    f.pageRecords(),
                    mb(f.baselineBytes()),
                    mb(f.peakLiveBytes()),
                    f.readerMb(),
                    mb(f.peakBeforeGcBytes()),
                    mb(f.maxHeapBytes()));
            Map<String, Object> row = record(f);
            row.put("backlogMb", f.backlogMb());
            row.put("readerMb", f.readerMb());
            json.add(row);
        }
        charts.memory = figures;
        report.put("readerMemory", json);
    }

    private void writeResults() throws Exception {
        Path dir = settings.out();
        Files.createDirectories(dir);
        Path json = dir.resolve("throughput.json");
        String text = JsonText.render(report);
        Files.writeString(json, text);
        say("%nwrote %s", json.toAbsolutePath());
        StringBuilder tables = new StringBuilder();
        for (String section : ResultTables.sections(ResultTables.parse(text))) {
            tables.append("<!-- ").append(section).append(" -->\n");
            tables.append(ResultTables.render(section, List.of(ResultTables.parse(text))));
            tables.append("\n");
        }
        if (!tables.isEmpty()) {
            Path md = dir.resolve("results.md");
            Files.writeString(md, tables);
            say("wrote %s", md.toAbsolutePath());
        }
        for (Path png : charts.draw(dir)) {
            say("wrote %s", png.toAbsolutePath());
        }
    }

    private void close() {
        if (spark != null) {
            spark.stop();
        }
        tunnels.shutdown();
        sync.shutdown();
    }

    // ---- what the parts share ------------------------------------------------------------------

    BenchEmulator emulator() {
        return emulator;
    }

    /**
     * The embedded emulator's internals, for a part that reads them; BenchSettings already refuses
     * such parts with emulator=process, this is the last line.
     */
    TablestoreEmulator inProcess(String part) {
        return emulator.inProcess()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "Part "
                                                + part
                                                + " reads the emulator's internals; run it with"
                                                + " emulator=embedded"));
    }

    BenchSettings settings() {
        return settings;
    }

    BenchTable table(String name) {
        return new BenchTable(emulator, sync, tunnels, name);
    }

    TunnelClient tunnels() {
        return tunnels;
    }

    /** The Spark session, started the first time a part needs it. */
    SparkSession spark() {
        if (spark == null) {
            spark = SparkDrain.session();
        }
        return spark;
    }

    void report(String key, Object value) {
        report.put(key, value);
    }

    ChartData charts() {
        return charts;
    }

    /** A record's components as a JSON object (field order kept). */
    static Map<String, Object> record(Record r) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (var c : r.getClass().getRecordComponents()) {
            try {
                Object value = c.getAccessor().invoke(r);
                map.put(c.getName(), value instanceof Optional<?> o ? o.orElse(null) : value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return map;
    }

    static double mb(long bytes) {
        return bytes / (double) (1 << 20);
    }

    static void say(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
    }
}
