package io.tablestorecdc.e2e.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one benchmark run measures and how big: {@code key=value} arguments (docs/benchmarks.md), or
 * the older positional {@code rows runs rawThreads}.
 *
 * @param parts the parts to run, in the fixed order of {@link #ALL_PARTS}
 * @param rows rows of the throughput backlog
 * @param runs reported runs per throughput consumer (after one warm-up)
 * @param rawThreads threads of the raw SDK loop
 * @param channels channel counts of the overhead part
 * @param idleTriggers idle triggers (Spark) of the overhead part
 * @param overheadBatches Spark micro-batches measured per table of the overhead part (at least 2)
 * @param overheadScope {@code all}, or {@code spark} to measure only the Spark driver per batch
 * @param latencyRate rows per second written in the latency part
 * @param latencySeconds seconds of steady writes per engine in the latency part
 * @param memoryBacklogs backlog sizes (rows) of the memory part
 * @param memoryRowKb attribute size (KB) of the memory part's rows
 * @param memoryXmx -Xmx of the memory part's reader JVM
 * @param sinkRows rows each writer writes per round of the sink part
 * @param lookupKeys rows of the lookup part's dimension table
 * @param lookupProbes lookups per round and variant of the lookup part
 * @param scanRows rows of the scan part's table, read whole by each reader per round
 * @param changelogKeys keys of the changelog part's table
 * @param changelogUpdates partial updates per key of the changelog part
 * @param tables tables of the tables part's source of many tables
 * @param tablePartitions partitions of each of those tables
 * @param out where the JSON file and charts go
 * @param emulator {@code embedded} (in the benchmark's JVM) or {@code process} (a child JVM)
 */
record BenchSettings(
        Set<String> parts,
        int rows,
        int runs,
        int rawThreads,
        List<Integer> channels,
        int idleTriggers,
        int overheadBatches,
        String overheadScope,
        int latencyRate,
        int latencySeconds,
        List<Integer> memoryBacklogs,
        int memoryRowKb,
        String memoryXmx,
        int sinkRows,
        int lookupKeys,
        int lookupProbes,
        int scanRows,
        int changelogKeys,
        int changelogUpdates,
        int tables,
        int tablePartitions,
        Path out,
        String emulator) {

    static final List<String> ALL_PARTS =
            List.of(
                    "throughput",
                    "ceilings",
                    "overhead",
                    "latency",
                    "memory",
                    "sink",
                    "lookup",
                    "scan",
                    "changelog",
                    "tables");

    static final List<String> OVERHEAD_SCOPES = List.of("all", "spark");

    static final List<String> EMULATOR_MODES = List.of("embedded", "process");

    /** The parts that read the emulator's internals (the read batch size) in this JVM. */
    static final List<String> EMBEDDED_ONLY_PARTS = List.of("memory");

    /** Every key with its default, as docs/benchmarks.md lists them. */
    static final Map<String, String> DEFAULTS =
            Map.ofEntries(
                    Map.entry("parts", String.join(",", ALL_PARTS)),
                    Map.entry("rows", "200000"),
                    Map.entry("runs", "3"),
                    Map.entry("rawThreads", "2"),
                    Map.entry("channels", "1,16,256,1024"),
                    Map.entry("idleTriggers", "200"),
                    Map.entry("overheadBatches", "4"),
                    Map.entry("overheadScope", "all"),
                    Map.entry("latencyRate", "200"),
                    Map.entry("latencySeconds", "20"),
                    Map.entry("memoryBacklogs", "250,1000"),
                    Map.entry("memoryRowKb", "100"),
                    Map.entry("memoryXmx", "96m"),
                    Map.entry("sinkRows", "100000"),
                    Map.entry("lookupKeys", "10000"),
                    Map.entry("lookupProbes", "100000"),
                    Map.entry("scanRows", "600000"),
                    Map.entry("changelogKeys", "20000"),
                    Map.entry("changelogUpdates", "4"),
                    Map.entry("tables", "100"),
                    Map.entry("tablePartitions", "4"),
                    Map.entry("out", "target/bench"),
                    Map.entry("emulator", "embedded"));

    private static final List<String> POSITIONAL = List.of("rows", "runs", "rawThreads");

    static BenchSettings parse(String... args) {
        Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
        int position = 0;
        for (String arg : args) {
            if (arg.isBlank()) {
                continue;
            }
            int eq = arg.indexOf('=');
            if (eq < 0 && position < POSITIONAL.size()) {
                values.put(POSITIONAL.get(position++), arg);
            } else if (eq > 0 && DEFAULTS.containsKey(arg.substring(0, eq))) {
                values.put(arg.substring(0, eq), arg.substring(eq + 1));
            } else {
                throw new IllegalArgumentException(
                        "Unknown benchmark argument '"
                                + arg
                                + "': use key=value with a key of "
                                + DEFAULTS.keySet()
                                + " (docs/benchmarks.md)");
            }
        }
        return of(values);
    }

    private static BenchSettings of(Map<String, String> v) {
        return new BenchSettings(
                parts(v.get("parts")),
                Integer.parseInt(v.get("rows")),
                Integer.parseInt(v.get("runs")),
                Integer.parseInt(v.get("rawThreads")),
                ints(v.get("channels")),
                Integer.parseInt(v.get("idleTriggers")),
                Integer.parseInt(v.get("overheadBatches")),
                v.get("overheadScope").trim().toLowerCase(Locale.ROOT),
                Integer.parseInt(v.get("latencyRate")),
                Integer.parseInt(v.get("latencySeconds")),
                ints(v.get("memoryBacklogs")),
                Integer.parseInt(v.get("memoryRowKb")),
                v.get("memoryXmx"),
                Integer.parseInt(v.get("sinkRows")),
                Integer.parseInt(v.get("lookupKeys")),
                Integer.parseInt(v.get("lookupProbes")),
                Integer.parseInt(v.get("scanRows")),
                Integer.parseInt(v.get("changelogKeys")),
                Integer.parseInt(v.get("changelogUpdates")),
                Integer.parseInt(v.get("tables")),
                Integer.parseInt(v.get("tablePartitions")),
                Path.of(v.get("out")),
                emulator(v.get("emulator")));
    }

    BenchSettings {
        if (changelogKeys < ChangelogPart.PARTITIONS || changelogUpdates < 1) {
            throw new IllegalArgumentException(
                    "The changelog part needs changelogKeys of at least "
                            + ChangelogPart.PARTITIONS
                            + " (one per partition) and changelogUpdates of at least 1, but they"
                            + " were "
                            + changelogKeys
                            + " and "
                            + changelogUpdates);
        }
        if (tables < 2 || tablePartitions < 1) {
            throw new IllegalArgumentException(
                    "The tables part needs at least 2 tables of at least 1 partition, but tables"
                            + " was "
                            + tables
                            + " and tablePartitions "
                            + tablePartitions);
        }
        if (overheadBatches < 2) {
            throw new IllegalArgumentException(
                    "overheadBatches must be at least 2 (the first batch is reported apart) but was "
                            + overheadBatches);
        }
        if (!OVERHEAD_SCOPES.contains(overheadScope)) {
            throw new IllegalArgumentException(
                    "Unknown overheadScope '"
                            + overheadScope
                            + "': choose from "
                            + OVERHEAD_SCOPES
                            + " (spark measures only the Spark driver per batch)");
        }
        if (emulator.equals("process")) {
            List<String> embeddedOnly =
                    parts.stream().filter(EMBEDDED_ONLY_PARTS::contains).toList();
            if (!embeddedOnly.isEmpty()) {
                throw new IllegalArgumentException(
                        "Parts "
                                + embeddedOnly
                                + " read the emulator's internals (the read batch size) and need"
                                + " emulator=embedded; with emulator=process choose from"
                                + " parts=throughput,ceilings,overhead,latency");
            }
        }
    }

    private static String emulator(String text) {
        String mode = text.trim().toLowerCase(Locale.ROOT);
        if (!EMULATOR_MODES.contains(mode)) {
            throw new IllegalArgumentException(
                    "Unknown emulator mode '"
                            + text
                            + "': choose from "
                            + EMULATOR_MODES
                            + " (embedded runs it in the benchmark's JVM, process in a child JVM)");
        }
        return mode;
    }

    boolean inChildProcess() {
        return emulator.equals("process");
    }

    private static Set<String> parts(String text) {
        Set<String> wanted = new LinkedHashSet<>();
        for (String part : text.toLowerCase(Locale.ROOT).split(",")) {
            String p = part.trim();
            if (p.equals("all")) {
                wanted.addAll(ALL_PARTS);
            } else if (ALL_PARTS.contains(p)) {
                wanted.add(p);
            } else if (!p.isEmpty()) {
                throw new IllegalArgumentException(
                        "Unknown benchmark part '" + p + "': choose from " + ALL_PARTS + " or all");
            }
        }
        Set<String> ordered = new LinkedHashSet<>(ALL_PARTS);
        ordered.retainAll(wanted);
        return ordered;
    }

    private static List<Integer> ints(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).map(Integer::valueOf).toList();
    }

    /** Whether the overhead part measures only the Spark driver per batch. */
    boolean overheadSparkOnly() {
        return overheadScope.equals("spark");
    }

    boolean runs(String part) {
        return parts.contains(part);
    }
}
