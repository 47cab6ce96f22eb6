package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * One Spark query of several tables ({@code table.pattern}) in a child JVM, killed with SIGKILL at
 * random moments and restarted on its checkpoint while rows go on being written into every table;
 * between kills a table's partition is split and a new matching table is created. In the end every
 * row written to every table was delivered exactly once: each batch id holds the same records every
 * time it runs, and no record is in two batches.
 *
 * <p>{@code -Dcrash.tables.kills=N} (default 4) and {@code -Dcrash.seed=S} to repeat a run.
 */
class SparkTablesCrashITCase {

    private static final String TUNNEL = "tables-crash";
    private static final Duration PROGRESS = Duration.ofSeconds(120);

    @Test
    void killedDriversOfAQueryOfSeveralTablesLoseAndDuplicateNothing() throws Exception {
        int kills = Integer.getInteger("crash.tables.kills", 4);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path dir = Files.createTempDirectory("tablestore-cdc-tables-crash");
        String context = "seed " + seed + " (-Dcrash.seed=" + seed + "), logs in " + dir;
        System.out.printf("spark tables crash loop: %d kills, %s%n", kills, context);
        try (EmulatorBed bed = EmulatorBed.start()) {
            TablestoreEmulator emulator = bed.emulator();
            String prefix = "tables_crash_";
            List<String> tables = new CopyOnWriteArrayList<>();
            tables.add(bed.newTable(prefix));
            tables.add(bed.newTable(prefix));
            Set<String> written = ConcurrentHashMap.newKeySet();
            TableRowWriter writer = new TableRowWriter(bed, tables, written);
            writer.start();
            List<Path> logs = new ArrayList<>();
            try {
                for (int run = 0; run <= kills; run++) {
                    Path log = dir.resolve("run" + run + ".log");
                    logs.add(log);
                    ChildJvm child = launch(emulator, bed, dir, run, log);
                    try {
                        Await.until(
                                "run " + run + " to deliver a batch (" + child.log() + ")",
                                PROGRESS,
                                () -> alive(child) && !complete(log).isEmpty());
                        if (run == kills) {
                            writer.stop();
                            Await.until(
                                    "every written row to be delivered (" + context + ")",
                                    PROGRESS,
                                    () -> alive(child) && delivered(logs).containsAll(written));
                        } else {
                            // A random moment of the run: mid-batch, mid-commit or idle.
                            Thread.sleep(200 + random.nextInt(2500));
                        }
                    } finally {
                        child.kill();
                    }
                    if (run == 0) {
                        List<String> children =
                                emulator.tunnels()
                                        .split(tables.get(0), EmulatorBed.key("row-000300"));
                        System.out.printf("split %s into %s%n", tables.get(0), children);
                    } else if (run == 1) {
                        String created = bed.newTable(prefix);
                        tables.add(created);
                        System.out.printf("created %s%n", created);
                    }
                }
            } finally {
                writer.stop();
            }

            Map<Long, List<String>> batches = new TreeMap<>();
            for (Path log : logs) {
                complete(log)
                        .forEach(
                                (batch, records) -> {
                                    List<String> first = batches.putIfAbsent(batch, records);
                                    if (first != null) {
                                        assertThat(sorted(records))
                                                .as("batch %d run again (%s)", batch, context)
                                                .isEqualTo(sorted(first));
                                    }
                                });
            }
            List<String> all = new ArrayList<>();
            batches.values().forEach(all::addAll);
            assertThat(all).as("no record in two batches (%s)", context).doesNotHaveDuplicates();
            assertThat(Set.copyOf(all))
                    .as("every row of every table, nothing else (%s)", context)
                    .isEqualTo(written);
            assertThat(all).anyMatch(r -> r.startsWith(tables.get(2) + " "));
        }
    }

    private static ChildJvm launch(
            TablestoreEmulator emulator, EmulatorBed bed, Path dir, int run, Path log)
            throws IOException {
        List<String> args =
                List.of(
                        "endpoint=" + emulator.endpoint(),
                        "instance=" + emulator.instanceName(),
                        "accessKeyId=" + emulator.accessKeyId(),
                        "pattern=tables_crash_[0-9]+",
                        "tunnel=" + TUNNEL,
                        "checkpoint=" + dir.resolve("checkpoint"),
                        "log=" + log);
        return ChildJvm.start(
                SparkTablesCrashChild.class,
                args,
                Map.of(ChildArgs.SECRET_ENV, emulator.accessKeySecret()),
                dir.resolve("run" + run + ".out"));
    }

    private static boolean alive(ChildJvm child) {
        if (!child.isAlive()) {
            throw new AssertionError(
                    "The Spark driver ended (exit " + child.exitValue() + "), see " + child.log());
        }
        return true;
    }

    private static List<String> sorted(List<String> records) {
        List<String> copy = new ArrayList<>(records);
        copy.sort(null);
        return copy;
    }

    /** The records of every complete batch of every run. */
    private static Set<String> delivered(List<Path> logs) {
        Set<String> all = new java.util.HashSet<>();
        logs.forEach(log -> complete(log).values().forEach(all::addAll));
        return all;
    }

    /**
     * The batches of one run's log that it delivered completely (a batch a kill cut short has no
     * closing line), each as {@code table id} records in the order delivered.
     */
    static Map<Long, List<String>> complete(Path log) {
        Map<Long, List<String>> batches = new HashMap<>();
        if (!Files.exists(log)) {
            return batches;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Long, List<String>> open = new HashMap<>();
        for (String line : lines) {
            String[] parts = line.split(" ");
            if (parts.length != 3) {
                continue; // the last line of a killed run may be cut short
            }
            if (parts[0].equals("end")) {
                long batch = Long.parseLong(parts[1]);
                List<String> records = open.getOrDefault(batch, List.of());
                if (records.size() == Integer.parseInt(parts[2])) {
                    batches.put(batch, records);
                }
                open.remove(batch);
            } else {
                open.computeIfAbsent(Long.parseLong(parts[0]), b -> new ArrayList<>())
                        .add(parts[1] + " " + parts[2]);
            }
        }
        return batches;
    }
}
