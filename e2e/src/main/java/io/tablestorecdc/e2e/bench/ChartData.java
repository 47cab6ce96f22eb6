package io.tablestorecdc.e2e.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** The results the charts are drawn from, filled in by the parts that ran; draws what it has. */
final class ChartData {

    Map<String, Measurement> throughput = Map.of();

    /** Start-up left out: Spark's steady rate over raw's, Flink's 10-90 % window over raw's. */
    Map<String, Double> steadyRatios = Map.of();

    List<BatchOverhead.Figures> sparkOverhead = List.of();
    List<FlinkCheckpoints.Figures> flinkOverhead = List.of();
    List<LatencyUnderLoad.Figures> latency = List.of();
    List<ReaderMemory.Figures> memory = List.of();

    /** Writes a PNG per part that ran into {@code dir}; returns the files. */
    List<Path> draw(Path dir) throws Exception {
        List<Path> written = new ArrayList<>();
        if (!throughput.isEmpty()) {
            written.add(ratios(dir.resolve("throughput-ratios.png")));
        }
        if (!sparkOverhead.isEmpty()) {
            written.add(driverTime(dir.resolve("overhead-driver-ms.png")));
            written.add(metaRequests(dir.resolve("overhead-meta.png")));
        }
        if (!latency.isEmpty()) {
            written.add(latency(dir.resolve("latency.png")));
        }
        if (!memory.isEmpty()) {
            written.add(memory(dir.resolve("reader-memory.png")));
        }
        return written;
    }

    private Path ratios(Path file) throws Exception {
        List<Charts.Bar> bars = new ArrayList<>();
        ratio(bars, "spark", "raw", "Spark / raw SDK loop", 0);
        ratio(bars, "flink", "raw", "Flink / raw SDK loop", 1);
        steadyRatios.forEach(
                (label, r) ->
                        bars.add(new Charts.Bar(label, r, label.startsWith("Spark") ? 0 : 1)));
        ratio(bars, "spark", "spark-memory", "Spark / MemoryStream", 0);
        ratio(bars, "flink", "flink-memory", "Flink / in-memory", 1);
        Charts.bars(
                file,
                "Read throughput ratios (median runs; whole drain unless marked)",
                "ratio",
                bars,
                OptionalDouble.of(1));
        return file;
    }

    private void ratio(List<Charts.Bar> bars, String a, String b, String label, int group) {
        if (throughput.containsKey(a) && throughput.containsKey(b)) {
            double r = throughput.get(a).recordsPerSecond() / throughput.get(b).recordsPerSecond();
            bars.add(new Charts.Bar(label.replace(" / ", "\n/ "), r, group));
        }
    }

    private Path driverTime(Path file) throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put(
                "Spark driver ms per batch, outside tasks",
                sparkOverhead.stream().mapToDouble(BatchOverhead.Figures::driverMs).toArray());
        series.put(
                "of it latestOffset",
                sparkOverhead.stream()
                        .mapToDouble(f -> f.medianMs().get("latestOffset"))
                        .toArray());
        Charts.lines(
                file,
                "Spark driver time per micro-batch vs channels (target < 500 ms, dashed)",
                "ms",
                channelLabels(),
                series,
                OptionalDouble.of(500));
        return file;
    }

    private Path metaRequests(Path file) throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put(
                "Spark meta requests / batch",
                sparkOverhead.stream()
                        .mapToDouble(BatchOverhead.Figures::metaRequestsPerBatch)
                        .toArray());
        series.put(
                "Spark meta rows / batch",
                sparkOverhead.stream()
                        .mapToDouble(BatchOverhead.Figures::metaRowsPerBatch)
                        .toArray());
        if (flinkOverhead.size() == sparkOverhead.size()) {
            series.put(
                    "Flink meta requests / ckpt",
                    flinkOverhead.stream()
                            .mapToDouble(FlinkCheckpoints.Figures::metaRequestsPerCheckpoint)
                            .toArray());
            series.put(
                    "Flink meta rows / ckpt",
                    flinkOverhead.stream()
                            .mapToDouble(FlinkCheckpoints.Figures::metaRowsPerCheckpoint)
                            .toArray());
        }
        Charts.lines(
                file,
                "Meta-table requests and rows written per batch / checkpoint vs channels",
                "count",
                channelLabels(),
                series,
                OptionalDouble.empty());
        return file;
    }

    private List<String> channelLabels() {
        return sparkOverhead.stream().map(f -> f.channels() + " channels").toList();
    }

    private Path latency(Path file) throws Exception {
        List<Charts.Bar> bars = new ArrayList<>();
        int group = 0;
        for (LatencyUnderLoad.Figures f : latency) {
            bars.add(new Charts.Bar(f.engine() + "\np50", f.p50Ms(), group));
            bars.add(new Charts.Bar(f.engine() + "\np99", f.p99Ms(), group));
            group++;
        }
        Charts.bars(
                file,
                String.format(
                        Locale.ROOT,
                        "Latency, PutRow ack to sink (Spark trigger %d ms; 1 s dashed)",
                        LatencyUnderLoad.TRIGGER_MS),
                "ms",
                bars,
                OptionalDouble.of(1000));
        return file;
    }

    private Path memory(Path file) throws Exception {
        List<Charts.Bar> bars = new ArrayList<>();
        for (ReaderMemory.Figures f : memory) {
            String backlog = String.format(Locale.ROOT, "%d rows", f.backlogRows());
            bars.add(new Charts.Bar("backlog MB\n" + backlog, f.backlogMb(), 0));
            bars.add(new Charts.Bar("reader heap MB\n" + backlog, f.readerMb(), 2));
        }
        String xmx = memory.get(0).xmx();
        Charts.bars(
                file,
                "Reader heap (peak live, above start) vs backlog; reader JVM -Xmx" + xmx,
                "MB",
                bars,
                OptionalDouble.empty());
        return file;
    }
}
