package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One Flink source of several tables ({@code table.pattern}) in a child JVM, killed with SIGKILL at
 * random moments and restored from the latest retained checkpoint while rows go on being written
 * into every table; between kills a table's partition is split and a new matching table is created.
 * In the end the changes each run logged up to the checkpoint the next run restored from (the last
 * run's all) hold every row written to every table exactly once.
 *
 * <p>{@code -Dcrash.tables.kills=N} (default 4) and {@code -Dcrash.seed=S} to repeat a run.
 */
class FlinkTablesCrashITCase {

    private static final String TUNNEL = "flink-tables-crash";
    private static final Duration PROGRESS = Duration.ofSeconds(120);

    @Test
    void killedJobsOfASourceOfSeveralTablesLoseAndDuplicateNothing() throws Exception {
        int kills = Integer.getInteger("crash.tables.kills", 4);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path dir = Files.createTempDirectory("tablestore-cdc-flink-tables-crash");
        String context = "seed " + seed + " (-Dcrash.seed=" + seed + "), logs in " + dir;
        System.out.printf("flink tables crash loop: %d kills, %s%n", kills, context);
        try (EmulatorBed bed = EmulatorBed.start()) {
            TablestoreEmulator emulator = bed.emulator();
            String prefix = "flink_tables_crash_";
            List<String> tables = new CopyOnWriteArrayList<>();
            tables.add(bed.newTable(prefix));
            tables.add(bed.newTable(prefix));
            Set<String> written = ConcurrentHashMap.newKeySet();
            TableRowWriter writer = new TableRowWriter(bed, tables, written);
            writer.start();
            List<Run> runs = new ArrayList<>();
            try {
                for (int run = 0; run <= kills; run++) {
                    Optional<Checkpoint> restore = latestRetained(dir, run);
                    Run current = new Run(run, restore);
                    runs.add(current);
                    ChildJvm child = launch(emulator, dir, current);
                    int thisRun = run;
                    try {
                        Await.until(
                                "run " + run + " to complete a checkpoint (" + child.log() + ")",
                                PROGRESS,
                                () -> alive(child) && latestIn(dir, thisRun).isPresent());
                        if (run == kills) {
                            writer.stop();
                            try {
                                Await.until(
                                        "every written row to be delivered (" + context + ")",
                                        PROGRESS,
                                        () ->
                                                alive(child)
                                                        && Set.copyOf(delivered(dir, runs))
                                                                .containsAll(written));
                            } catch (AssertionError e) {
                                Set<String> missing = new java.util.TreeSet<>(written);
                                missing.removeAll(delivered(dir, runs));
                                throw new AssertionError(
                                        e.getMessage() + "; missing " + missing, e);
                            }
                        } else {
                            // A random moment of the run: mid-checkpoint or between two.
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

            List<String> all = delivered(dir, runs);
            assertThat(all).as("no row delivered twice (%s)", context).doesNotHaveDuplicates();
            assertThat(Set.copyOf(all))
                    .as("every row of every table, nothing else (%s)", context)
                    .isEqualTo(written);
            assertThat(all).anyMatch(r -> r.startsWith(tables.get(2) + " "));
            for (int run = 1; run <= kills; run++) {
                assertThat(runs.get(run).restore())
                        .as("run %d was restored from a retained checkpoint (%s)", run, context)
                        .isPresent();
            }
        }
    }

    /** A run, and the retained checkpoint it was restored from. */
    private record Run(int run, Optional<Checkpoint> restore) {}

    /** A retained checkpoint: the run that wrote it, its id and directory. */
    private record Checkpoint(int producer, long id, Path path) {}

    private static ChildJvm launch(TablestoreEmulator emulator, Path dir, Run run)
            throws IOException {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "endpoint=" + emulator.endpoint(),
                                "instance=" + emulator.instanceName(),
                                "accessKeyId=" + emulator.accessKeyId(),
                                "pattern=flink_tables_crash_[0-9]+",
                                "tunnel=" + TUNNEL,
                                "checkpoints=" + checkpoints(dir, run.run()),
                                "log=" + log(dir, run.run())));
        run.restore().ifPresent(c -> args.add("restore=" + c.path().toUri()));
        return ChildJvm.start(
                FlinkTablesCrashChild.class,
                args,
                Map.of(ChildArgs.SECRET_ENV, emulator.accessKeySecret()),
                dir.resolve("run" + run.run() + ".out"));
    }

    private static boolean alive(ChildJvm child) {
        if (!child.isAlive()) {
            throw new AssertionError(
                    "The Flink job ended (exit " + child.exitValue() + "), see " + child.log());
        }
        return true;
    }

    /**
     * What the runs delivered: each run's changes up to the checkpoint the next run restored from
     * (none when the next run restored from an earlier run's), the last run's all.
     */
    private static List<String> delivered(Path dir, List<Run> runs) {
        Map<Integer, Long> upTo = new HashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            upTo.put(i, i == runs.size() - 1 ? Long.MAX_VALUE : -1L);
        }
        for (int i = 1; i < runs.size(); i++) {
            Optional<Checkpoint> restore = runs.get(i).restore();
            if (restore.isPresent() && restore.get().producer() == i - 1) {
                upTo.put(i - 1, restore.get().id());
            }
        }
        List<String> all = new ArrayList<>();
        for (Run run : runs) {
            long last = upTo.get(run.run());
            logged(log(dir, run.run()))
                    .forEach(
                            (checkpoint, changes) -> {
                                if (checkpoint <= last) {
                                    all.addAll(changes);
                                }
                            });
        }
        return all;
    }

    /** A run's log by checkpoint, each change as {@code table id} (a cut-short line left out). */
    private static Map<Long, List<String>> logged(Path log) {
        Map<Long, List<String>> byCheckpoint = new HashMap<>();
        if (!Files.exists(log)) {
            return byCheckpoint;
        }
        try {
            for (String line : Files.readAllLines(log)) {
                String[] parts = line.split(" ");
                if (parts.length == 3 && parts[2].matches("row-[0-9]{6}")) {
                    byCheckpoint
                            .computeIfAbsent(Long.parseLong(parts[0]), c -> new ArrayList<>())
                            .add(parts[1] + " " + parts[2]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return byCheckpoint;
    }

    /** The newest retained checkpoint of the newest run before {@code run} that has one. */
    private static Optional<Checkpoint> latestRetained(Path dir, int run) {
        for (int producer = run - 1; producer >= 0; producer--) {
            Optional<Checkpoint> latest = latestIn(dir, producer);
            if (latest.isPresent()) {
                return latest;
            }
        }
        return Optional.empty();
    }

    /** The newest {@code <dir>/<job id>/chk-N} of {@code run} whose metadata is written. */
    private static Optional<Checkpoint> latestIn(Path dir, int run) {
        Path checkpoints = checkpoints(dir, run);
        if (!Files.isDirectory(checkpoints)) {
            return Optional.empty();
        }
        // A running job deletes subsumed checkpoints while we look: skip what vanished.
        try (Stream<Path> files =
                Files.find(
                        checkpoints, 3, (p, a) -> p.getFileName().toString().startsWith("chk-"))) {
            return files.filter(p -> Files.exists(p.resolve("_metadata")))
                    .map(
                            p ->
                                    new Checkpoint(
                                            run,
                                            Long.parseLong(p.getFileName().toString().substring(4)),
                                            p))
                    .max((a, b) -> Long.compare(a.id(), b.id()));
        } catch (NoSuchFileException | UncheckedIOException e) {
            return Optional.empty(); // asked again on the next poll
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path checkpoints(Path dir, int run) {
        return dir.resolve("checkpoints").resolve("run" + run);
    }

    private static Path log(Path dir, int run) {
        return dir.resolve("run" + run + ".changes");
    }
}
