package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.orders.TableDiff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The loop both crash tests run: start the engine in a child JVM, let it make progress, kill it
 * with SIGKILL at a moment of some {@link Kind}, restart it on its checkpoint; N times. Then a last
 * run catches up with the writes stopped, and the sink's replica and change log are checked.
 */
final class CrashLoop {

    /** When a child is killed. */
    enum Kind {
        /** At a random moment after it made progress. */
        RANDOM,
        /** Right after a partition split, while the parent channel ends and its children wait. */
        SPLIT,
        /** Inside a commit: the sink has written a unit, the engine has not recorded it yet. */
        COMMIT,
        /** Right after two partitions were merged (a split when none is active). */
        MERGE
    }

    /** One engine's side of the loop. */
    interface Engine {
        String name();

        /** Starts run {@code run}; {@code holdAt} > 0 makes it hold inside that commit. */
        ChildJvm launch(int run, int holdAt) throws IOException;

        /** Whether run {@code run} has moved the stream on (so killing it now is progress). */
        boolean madeProgress(int run);

        /** Everything the sink logged so far, in run order. */
        List<Delivery> deliveries();

        DeliveryAudit.Report audit(Map<String, String> expected);

        /** Where run {@code run} says it is holding inside a commit. */
        Path holdMarker(int run);
    }

    /**
     * One kill.
     *
     * @param run the run killed
     * @param kind when
     * @param what what the test did before the kill
     * @param aliveMillis how long the child ran
     * @param lineage the split or merge done before the kill
     * @param childrenUnreadAtKill the lineage's children had delivered nothing when it was killed
     * @param heldUnit for {@link Kind#COMMIT}: the batch or checkpoint it held inside
     */
    record Kill(
            int run,
            Kind kind,
            String what,
            long aliveMillis,
            Optional<CrashBed.Lineage> lineage,
            boolean childrenUnreadAtKill,
            OptionalLong heldUnit) {}

    /**
     * How the loop ended.
     *
     * @param kills the kills, in order
     * @param report the change log audit
     * @param diff the replica against the source table
     * @param sinkDiff the replica the {@code tablestore} sink wrote against the source table
     * @param expected the changes the source wrote
     * @param logs every child's output file
     */
    record Outcome(
            List<Kill> kills,
            DeliveryAudit.Report report,
            TableDiff diff,
            TableDiff sinkDiff,
            Map<String, String> expected,
            List<Path> logs) {}

    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(150);

    private final CrashBed bed;
    private final Engine engine;
    private final Random random;
    private final List<Path> logs = new ArrayList<>();
    private final List<Kill> kills = new ArrayList<>();
    private ChildJvm current;

    CrashLoop(CrashBed bed, Engine engine, long seed) {
        this.bed = bed;
        this.engine = engine;
        this.random = new Random(seed);
    }

    /** Runs {@code n} kill-and-restart rounds, then the catch-up run; returns the outcome. */
    Outcome run(int n, Duration catchUp) throws Exception {
        try {
            for (int run = 0; run < n; run++) {
                kills.add(round(run, Kind.values()[run % Kind.values().length]));
            }
            return finish(n, catchUp);
        } finally {
            if (current != null) {
                current.killQuietly();
            }
        }
    }

    private Kill round(int run, Kind kind) throws Exception {
        int holdAt = kind == Kind.COMMIT ? 1 + random.nextInt(2) : 0;
        long start = System.nanoTime();
        current = launch(run, holdAt);
        if (kind == Kind.COMMIT) {
            // Holding may keep a Flink run from completing any checkpoint: await only the hold.
            await(
                    "run " + run + " to hold inside a commit",
                    PROGRESS_TIMEOUT,
                    () -> Files.exists(engine.holdMarker(run)));
            current.kill();
            return record(run, kind, Optional.empty(), (System.nanoTime() - start) / 1_000_000);
        }
        await("run " + run + " to make progress", PROGRESS_TIMEOUT, () -> engine.madeProgress(run));
        Optional<CrashBed.Lineage> lineage =
                switch (kind) {
                    case SPLIT -> Optional.of(bed.split());
                    case MERGE -> Optional.of(bed.merge().orElseGet(bed::split));
                    default -> Optional.empty();
                };
        pause(lineage.isPresent() ? random.nextInt(600) : random.nextInt(1500));
        current.kill();
        return record(run, kind, lineage, (System.nanoTime() - start) / 1_000_000);
    }

    private Kill record(int run, Kind kind, Optional<CrashBed.Lineage> lineage, long aliveMillis) {
        Set<String> read = new HashSet<>();
        engine.deliveries().forEach(d -> d.changes().forEach(c -> read.add(c.channel())));
        boolean unread =
                lineage.map(l -> l.children().stream().noneMatch(read::contains)).orElse(false);
        OptionalLong held = kind == Kind.COMMIT ? heldUnit(run) : OptionalLong.empty();
        String what =
                switch (kind) {
                    case RANDOM -> "at a random moment";
                    case COMMIT -> "inside the commit of unit " + held.orElse(-1);
                    case SPLIT, MERGE ->
                            lineage.get().description()
                                    + (unread ? ", children not read yet" : ", children read");
                };
        Kill kill = new Kill(run, kind, what, aliveMillis, lineage, unread, held);
        System.out.printf(
                "%s run %2d killed (SIGKILL) after %5.1f s, %s%n",
                engine.name(), run, aliveMillis / 1000.0, what);
        return kill;
    }

    private OptionalLong heldUnit(int run) {
        try {
            return OptionalLong.of(Long.parseLong(Files.readString(engine.holdMarker(run)).trim()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Outcome finish(int run, Duration catchUp) throws Exception {
        bed.stopWriting();
        Map<String, String> expected = bed.truth.expected();
        long start = System.nanoTime();
        current = launch(run, 0);
        await(
                "the last run to deliver every change and both replicas to match the source",
                catchUp,
                () ->
                        engine.audit(expected).missingFrom(expected) == 0
                                && bed.diff().matches()
                                && bed.sinkDiff().matches());
        current.kill();
        System.out.printf(
                "%s run %2d caught up in %.1f s; %d changes written after the base data%n",
                engine.name(), run, (System.nanoTime() - start) / 1e9, bed.truth.streamChanges());
        return new Outcome(
                kills, engine.audit(expected), bed.diff(), bed.sinkDiff(), expected, logs);
    }

    private ChildJvm launch(int run, int holdAt) throws IOException {
        ChildJvm child = engine.launch(run, holdAt);
        logs.add(child.log());
        return child;
    }

    /** Polls {@code done} until it holds; fails early if the child or the writer died. */
    private void await(String what, Duration timeout, BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            bed.checkWriter();
            if (!current.isAlive()) {
                throw new AssertionError(
                        "The "
                                + engine.name()
                                + " child ended by itself (status "
                                + current.exitValue()
                                + ") while waiting for "
                                + what
                                + "; see "
                                + current.log());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Timed out after " + timeout + " waiting for " + what + "; see " + logs);
            }
            pause(100);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
