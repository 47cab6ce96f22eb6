package io.tablestorecdc.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The demo's command-line flags.
 *
 * @param engines which engines run
 * @param rows base data rows written before the tunnels are created
 * @param duration how long changes are written after that
 * @param rate changes written per second
 * @param seed the seed of the change mix
 * @param table the source table's name (replicas get suffixes); with several tables, their prefix
 * @param tables how many source tables: one ({@code table}) or {@code table_1} to {@code table_N},
 *     each read by one source of each engine
 * @param target an external instance, or empty for the embedded emulator
 * @param catchUpTimeout how long the replicas may take to catch up once writes stop
 * @param reshardEvery split, then merge back, the middle partition this often; empty: one split and
 *     one merge per run
 * @param watchEvery print heap after GC and meta-table rows this often; empty: never
 */
public record DemoSettings(
        Set<Engine> engines,
        int rows,
        Duration duration,
        int rate,
        long seed,
        String table,
        int tables,
        Optional<DemoTarget> target,
        Duration catchUpTimeout,
        Optional<Duration> reshardEvery,
        Optional<Duration> watchEvery) {

    /** An engine the demo can run. */
    public enum Engine {
        SPARK,
        FLINK
    }

    public static final String USAGE =
            String.join(
                    "\n",
                    "Usage: Demo [flags]",
                    "  --engine spark|flink|both   engines to run (default both)",
                    "  --rows N                    base data rows (default 2000)",
                    "  --duration D                how long changes are written: 40s, 2m (default 40s)",
                    "  --rate N                    changes written per second (default 200)",
                    "  --seed N                    seed of the change mix (default 1)",
                    "  --table NAME                source table (default orders)",
                    "  --tables N                  N source tables NAME_1 .. NAME_N, read by one source",
                    "                              of each engine (table.pattern; default 1: NAME)",
                    "  --catch-up-timeout D        how long the replicas may take to catch up (default 120s)",
                    "  --reshard-every D           split the middle partition, then merge it back, every D",
                    "                              (default: one split and one merge per run)",
                    "  --watch-every D             print heap after GC and meta-table rows every D",
                    "                              (for long runs; forces a GC per sample)",
                    "  --endpoint URL --instance NAME --access-key-id ID --access-key-secret SECRET",
                    "                              run against this instance instead of the embedded",
                    "                              emulator (all four together; splits and merges only",
                    "                              when the endpoint is a standalone tablestore-emulator)");

    public DemoSettings {
        engines = Set.copyOf(engines);
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} naming the problem and fix. */
    public static DemoSettings parse(String... args) {
        Flags flags = Flags.of(args);
        DemoSettings settings =
                new DemoSettings(
                        engines(flags.take("engine").orElse("both")),
                        positive("rows", flags.take("rows").orElse("2000")),
                        duration("duration", flags.take("duration").orElse("40s")),
                        positive("rate", flags.take("rate").orElse("200")),
                        number("seed", flags.take("seed").orElse("1")),
                        flags.take("table").orElse("orders"),
                        positive("tables", flags.take("tables").orElse("1")),
                        target(flags),
                        duration("catch-up-timeout", flags.take("catch-up-timeout").orElse("120s")),
                        flags.take("reshard-every").map(d -> duration("reshard-every", d)),
                        flags.take("watch-every").map(d -> duration("watch-every", d)));
        flags.requireAllUsed();
        return settings;
    }

    /** The source tables: {@code table}, or {@code table_1} to {@code table_N}. */
    public List<String> sourceTables() {
        if (tables == 1) {
            return List.of(table);
        }
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= tables; i++) {
            names.add(table + "_" + i);
        }
        return names;
    }

    /** How the sources select the tables: {@code table.name} or, for several, a pattern. */
    public Map<String, String> tableSelection() {
        return tables == 1
                ? Map.of("table.name", table)
                : Map.of("table.pattern", table + "_[0-9]+");
    }

    private static Set<Engine> engines(String value) {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "spark" -> EnumSet.of(Engine.SPARK);
            case "flink" -> EnumSet.of(Engine.FLINK);
            case "both" -> EnumSet.of(Engine.SPARK, Engine.FLINK);
            default ->
                    throw new IllegalArgumentException(
                            "--engine " + value + " is not known: use spark, flink or both");
        };
    }

    private static Optional<DemoTarget> target(Flags flags) {
        List<Optional<String>> parts =
                List.of(
                        flags.take("endpoint"),
                        flags.take("instance"),
                        flags.take("access-key-id"),
                        flags.take("access-key-secret"));
        long given = parts.stream().filter(Optional::isPresent).count();
        if (given == 0) {
            return Optional.empty();
        }
        if (given < parts.size()) {
            throw new IllegalArgumentException(
                    "An external instance needs all of --endpoint, --instance, --access-key-id and"
                            + " --access-key-secret; leave all four out to use the embedded"
                            + " emulator");
        }
        return Optional.of(
                new DemoTarget(
                        parts.get(0).get(),
                        parts.get(1).get(),
                        parts.get(2).get(),
                        parts.get(3).get()));
    }

    private static int positive(String flag, String value) {
        long n = number(flag, value);
        if (n <= 0 || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "--" + flag + " must be a positive integer, not " + value);
        }
        return (int) n;
    }

    private static long number(String flag, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + flag + " must be an integer, not " + value);
        }
    }

    /** {@code 500ms}, {@code 40s}, {@code 2m}, or plain seconds. */
    static Duration duration(String flag, String value) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            Duration d;
            if (v.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            } else if (v.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            } else if (v.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            } else {
                d = Duration.ofSeconds(Long.parseLong(v));
            }
            if (d.isNegative() || d.isZero()) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--" + flag + " must be a positive duration such as 40s or 2m, not " + value);
        }
    }

    /** {@code --name value} pairs, each taken once. */
    private record Flags(List<String> names, List<String> values) {

        static Flags of(String[] args) {
            List<String> names = new ArrayList<>();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--")) {
                    throw new IllegalArgumentException(
                            "Unexpected argument '" + args[i] + "': flags look like --rows 2000");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                names.add(args[i].substring(2));
                values.add(args[++i]);
            }
            return new Flags(names, values);
        }

        Optional<String> take(String name) {
            int at = names.indexOf(name);
            if (at < 0) {
                return Optional.empty();
            }
            names.set(at, "");
            return Optional.of(values.get(at));
        }

        void requireAllUsed() {
            for (String name : names) {
                if (!name.isEmpty()) {
                    throw new IllegalArgumentException(
                            "Unknown or repeated flag --" + name + "; see --help");
                }
            }
        }
    }
}
