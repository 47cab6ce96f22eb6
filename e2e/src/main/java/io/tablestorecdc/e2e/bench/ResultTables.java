package io.tablestorecdc.e2e.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The results tables of docs/benchmarks.md, rendered from the JSON files the benchmark writes
 * ({@code throughput.json}): the benchmark writes them beside the JSON as {@code results.md}, and
 * the page's generated sections are the same tables over the runs published in {@code docs/img}.
 * Several files of one part are pooled: every figure is the median over all their rounds, with the
 * range beside it.
 */
final class ResultTables {

    /** The consumers of the throughput table, in the order the page lists them. */
    static final List<String> CONSUMERS =
            List.of("raw-4t", "raw-bytes", "spark", "flink", "flink-record");

    private ResultTables() {}

    static JsonObject parse(String json) {
        return JsonParser.parseString(json).getAsJsonObject();
    }

    /** The sections a results file holds tables for, each as its generated-section name. */
    static List<String> sections(JsonObject results) {
        List<String> names = new ArrayList<>();
        if (results.has("throughput")) {
            names.add("benchmark-throughput");
        }
        if (results.has("tables")) {
            names.add("benchmark-tables");
        }
        return names;
    }

    /** The section {@code name} of {@link #sections} over the given results files. */
    static String render(String name, List<JsonObject> results) {
        return switch (name) {
            case "benchmark-throughput" -> throughput(results);
            case "benchmark-tables" -> tables(results);
            default -> throw new IllegalArgumentException("No results table named " + name);
        };
    }

    /**
     * Read throughput: each consumer's rate over the raw SDK loop's of the same round, over {@code
     * raw-bytes}' (the sources only), and its consumer CPU per record.
     */
    static String throughput(List<JsonObject> results) {
        List<JsonObject> sets = results.stream().map(r -> r.getAsJsonObject("throughput")).toList();
        StringBuilder out = new StringBuilder();
        out.append(header(results, "rows"));
        out.append(
                "| consumer | whole run ÷ raw | steady ÷ raw | 10–90 % window ÷ raw |"
                        + " steady ÷ raw-bytes | consumer CPU µs/record | CPU ÷ raw's |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (String consumer : CONSUMERS) {
            if (sets.stream().noneMatch(s -> s.has(consumer))) {
                continue;
            }
            String cpu = cpuKey(sets, consumer);
            out.append("| `")
                    .append(consumer)
                    .append("` | ")
                    .append(spread(pooled(sets, consumer, "runsRatioToRawOfTheRound")))
                    .append(" | ")
                    .append(spread(pooled(sets, consumer, "runsSteadyRatioToRawOfTheRound")))
                    .append(" | ")
                    .append(spread(paired(sets, consumer, "runsWindowRecordsPerSecond")))
                    .append(" | ")
                    .append(spread(pooled(sets, consumer, "runsSteadyRatioToRawBytesOfTheRound")))
                    .append(" | ")
                    .append(number(median(pooled(sets, consumer, cpu))))
                    .append(cpu.contains("Window") ? " (10–90 %)" : " (whole)")
                    .append(" | ")
                    .append(spread(paired(sets, consumer, cpu)))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** A source of many tables against one table of as many partitions, per engine. */
    static String tables(List<JsonObject> results) {
        List<JsonObject> runs = results.stream().map(r -> r.getAsJsonObject("tables")).toList();
        JsonObject first = runs.get(0);
        StringBuilder out = new StringBuilder();
        out.append(header(results, "tables"));
        out.append(
                "| Spark source | driver outside tasks, ms | of it `latestOffset` | tasks"
                        + " (`addBatch`) | first batch, driver | meta rows / batch |"
                        + " meta requests / batch | peak threads |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < first.getAsJsonArray("sources").size(); i++) {
            Figures at = new Figures(runs, "sources", i);
            out.append("| ")
                    .append(label(first.getAsJsonArray("sources").get(i).getAsJsonObject(), first))
                    .append(" | ")
                    .append(at.spread("batch.driverMs"))
                    .append(" | ")
                    .append(at.median("batch.medianMs.latestOffset"))
                    .append(" | ")
                    .append(at.median("batch.medianMs.addBatch"))
                    .append(" | ")
                    .append(at.median("batch.firstBatchDriverMs"))
                    .append(" | ")
                    .append(at.median("batch.metaRowsPerBatch"))
                    .append(" | ")
                    .append(at.median("batch.metaRequestsPerBatch"))
                    .append(" | ")
                    .append(at.median("peakThreads"))
                    .append(" |\n");
        }
        out.append("\n");
        out.append(
                "| Flink source | first record after submission, ms | checkpoint, trigger to"
                        + " complete, ms | meta rows / checkpoint (reading, job start"
                        + " included) | meta requests / checkpoint (reading, job start included)"
                        + " | meta requests / idle checkpoint | meta requests / checkpoint, a row"
                        + " in every channel once running | peak threads |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < first.getAsJsonArray("flinkSources").size(); i++) {
            Figures at = new Figures(runs, "flinkSources", i);
            out.append("| ")
                    .append(
                            label(
                                    first.getAsJsonArray("flinkSources").get(i).getAsJsonObject(),
                                    first))
                    .append(" | ")
                    .append(at.spread("firstRecordMs"))
                    .append(" | ")
                    .append(at.spread("checkpoints.medianFullCheckpointMs"))
                    .append(" | ")
                    .append(at.median("checkpoints.metaRowsPerCheckpoint"))
                    .append(" | ")
                    .append(at.median("checkpoints.metaRequestsPerCheckpoint"))
                    .append(" | ")
                    .append(at.median("checkpoints.idleMetaRequestsPerCheckpoint"))
                    .append(" | ")
                    .append(at.median("checkpoints.changedMetaRequestsPerCheckpoint"))
                    .append(" | ")
                    .append(at.median("peakThreads"))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** How big, how many rounds of how many runs, which emulator mode: the line above a table. */
    private static String header(List<JsonObject> results, String sizeKey) {
        Set<String> modes = new LinkedHashSet<>();
        int rounds = 0;
        for (JsonObject r : results) {
            modes.add(r.has("emulator") ? r.get("emulator").getAsString() : "embedded");
            rounds += r.has("runs") ? r.get("runs").getAsInt() : 1;
        }
        String size =
                sizeKey.equals("rows") && results.get(0).has("rows")
                        ? results.get(0).get("rows").getAsInt() + " rows, "
                        : "";
        return String.format(
                Locale.ROOT,
                "%s%d rounds in %d runs, `emulator=%s`; medians over the rounds (min-max).%n%n",
                size,
                rounds,
                results.size(),
                String.join(",", modes));
    }

    private static String label(JsonObject source, JsonObject part) {
        int tables = source.get("tables").getAsInt();
        int partitions = part.get("tablePartitions").getAsInt();
        return tables == 1
                ? "1 table × " + (part.get("tables").getAsInt() * partitions) + " partitions"
                : tables + " tables × " + partitions + " partitions";
    }

    /** The consumer's per-round CPU: its 10–90 % window where it has one, else the whole run. */
    private static String cpuKey(List<JsonObject> sets, String consumer) {
        boolean window =
                sets.stream()
                        .filter(s -> s.has(consumer))
                        .allMatch(
                                s ->
                                        s.getAsJsonObject(consumer)
                                                        .has("runsWindowConsumerMicrosPerRecord")
                                                && s.getAsJsonObject("raw")
                                                        .has("runsWindowConsumerMicrosPerRecord"));
        return window ? "runsWindowConsumerMicrosPerRecord" : "runsConsumerMicrosPerRecord";
    }

    /** The consumer's per-round values of {@code key}, over all sets. */
    private static List<Double> pooled(List<JsonObject> sets, String consumer, String key) {
        List<Double> values = new ArrayList<>();
        for (JsonObject set : sets) {
            if (set.has(consumer) && set.getAsJsonObject(consumer).has(key)) {
                for (JsonElement e : set.getAsJsonObject(consumer).getAsJsonArray(key)) {
                    if (!e.isJsonNull()) {
                        values.add(e.getAsDouble());
                    }
                }
            }
        }
        return values;
    }

    /** The consumer's per-round {@code key} over the raw loop's of the same round. */
    private static List<Double> paired(List<JsonObject> sets, String consumer, String key) {
        List<Double> ratios = new ArrayList<>();
        for (JsonObject set : sets) {
            if (!set.has(consumer) || !set.getAsJsonObject(consumer).has(key)) {
                continue;
            }
            JsonArray mine = set.getAsJsonObject(consumer).getAsJsonArray(key);
            JsonArray raw = set.getAsJsonObject("raw").getAsJsonArray(key);
            for (int i = 0; i < Math.min(mine.size(), raw.size()); i++) {
                if (!mine.get(i).isJsonNull() && !raw.get(i).isJsonNull()) {
                    ratios.add(mine.get(i).getAsDouble() / raw.get(i).getAsDouble());
                }
            }
        }
        return ratios;
    }

    /** One source's figures (the {@code index}th of each run's {@code list}) over the runs. */
    private record Figures(List<JsonObject> runs, String list, int index) {

        String spread(String path) {
            return ResultTables.spread(values(path), "%.0f");
        }

        String median(String path) {
            return number(ResultTables.median(values(path)), "%.0f");
        }

        /** The value at {@code path} (dotted) in each run. */
        private List<Double> values(String path) {
            List<Double> values = new ArrayList<>();
            for (JsonObject run : runs) {
                JsonElement e = run.getAsJsonArray(list).get(index);
                for (String key : path.split("\\.")) {
                    e = e.getAsJsonObject().get(key);
                }
                if (e != null && !e.isJsonNull()) {
                    values.add(e.getAsDouble());
                }
            }
            return values;
        }
    }

    private static String spread(List<Double> values) {
        return spread(values, "%.2f");
    }

    /** {@code median (min-max)}, or the one value, or {@code -} for none. */
    private static String spread(List<Double> values, String format) {
        if (values.isEmpty()) {
            return "-";
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
        double max = values.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
        String median = number(median(values), format);
        if (values.size() == 1) {
            return median;
        }
        return median + " (" + number(min, format) + "-" + number(max, format) + ")";
    }

    private static double median(List<Double> values) {
        return values.isEmpty()
                ? Double.NaN
                : ConsumerFigures.median(
                        values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static String number(double value) {
        return number(value, "%.2f");
    }

    private static String number(double value, String format) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
    }
}
