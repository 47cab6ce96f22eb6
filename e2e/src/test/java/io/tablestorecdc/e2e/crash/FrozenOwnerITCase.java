package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Invariant 8 against a frozen owner: a consumer's process is stopped with SIGSTOP (a long GC
 * pause, a suspended VM), a second run on the same checkpoint takes the tunnel over and reads on,
 * then the first process runs again from exactly where it stopped. Thawed, it must deliver nothing
 * more and fail with the ownership error, without restarts; the second run then catches up and the
 * change logs of both hold every change exactly once.
 *
 * <p>The first run is frozen while idle (caught up, its newest batch committed) so that the test
 * sees the consumer's own fence at work: a batch already running when a process is frozen belongs
 * to the engine's own recovery (Spark re-runs a batch of its offset log with the same records).
 */
class FrozenOwnerITCase {

    private static final Duration PROGRESS = Duration.ofSeconds(150);
    private static final Duration FAILS_WITHIN = Duration.ofSeconds(90);
    private static final String OWNERSHIP_ERROR = "lost its owner lease";

    @Test
    void aThawedSparkQueryWhoseTunnelWasTakenOverDeliversNothingAndFails() throws Exception {
        try (CrashBed bed = new CrashBed("spark-frozen", 200, 11L)) {
            SparkRuns runs = new SparkRuns(bed);
            bed.startWriting(20);
            ChildJvm first = runs.launch(0, 0);
            ChildJvm second = null;
            try {
                awaitWhileAlive(first, "the first query's progress", () -> runs.madeProgress(0));
                bed.stopWriting();
                awaitWhileAlive(
                        first,
                        "the first query to catch up and commit its newest batch",
                        () -> bed.diff().matches() && allBatchesCommitted(runs.checkpoint()));
                first.freeze();
                List<Delivery> beforeFreeze = runs.deliveries(0);

                bed.startWriting(20);
                second = runs.launch(1, 0);
                ChildJvm taker = second;
                awaitWhileAlive(
                        taker,
                        "the second query, on the same checkpoint, to deliver changes",
                        () -> deliveredChanges(runs.deliveries(1)));
                first.thaw();
                int status = first.awaitExit(FAILS_WITHIN);

                assertThat(status)
                        .as("the thawed query's exit status; see " + first.log())
                        .isNotZero();
                assertThat(Files.readString(first.log())).contains(OWNERSHIP_ERROR);
                assertThat(runs.deliveries(0))
                        .as("what the thawed query delivered after it ran again")
                        .isEqualTo(beforeFreeze);

                bed.stopWriting();
                Map<String, String> expected = bed.truth.expected();
                awaitWhileAlive(
                        taker,
                        "the second query to deliver every change",
                        () ->
                                runs.audit(expected).missingFrom(expected) == 0
                                        && bed.diff().matches()
                                        && bed.sinkDiff().matches());
                DeliveryAudit.Report report = runs.audit(expected);
                assertThat(report.violations()).as("change log audit in " + bed.dir).isEmpty();
                assertThat(report.committed()).hasSize(expected.size());
            } finally {
                first.killQuietly(); // SIGKILL ends a frozen process too
                if (second != null) {
                    second.killQuietly();
                }
            }
        }
    }

    /**
     * Flink: the frozen job and a job restored from its newest retained checkpoint are one consumer
     * to the lease, and the restored one takes the tunnel over at once. The frozen job has a
     * restart strategy, as production jobs do: thawed, it must neither complete a checkpoint it
     * starts after the takeover (its sink logs under the checkpoint's id when the barrier arrives)
     * nor be restarted into taking the tunnel back; the restored job reads on and delivers every
     * change once.
     */
    @Test
    void aThawedFlinkJobWhoseTunnelWasTakenOverCompletesNoCheckpointAndIsNotRestarted()
            throws Exception {
        try (CrashBed bed = new CrashBed("flink-frozen", 200, 13L)) {
            FlinkRuns runs = new FlinkRuns(bed);
            bed.startWriting(20);
            ChildJvm first = runs.launch(0, 0, List.of("restarts=5"));
            ChildJvm second = null;
            try {
                awaitWhileAlive(
                        first,
                        "the first job to complete a checkpoint with changes",
                        () -> runs.madeProgress(0) && deliveredChanges(runs.deliveries(0)));
                first.freeze();
                long completedAtFreeze = runs.latestIn(0).orElseThrow().id();

                second = runs.launch(1, 0);
                ChildJvm taker = second;
                assertThat(runs.restoreOf(1)).as("the second job's restore").isPresent();
                awaitWhileAlive(
                        taker,
                        "the second job, restored from the first one's checkpoint, to complete a"
                                + " checkpoint",
                        () -> runs.madeProgress(1));
                first.thaw();
                int status = first.awaitExit(FAILS_WITHIN);

                String log = Files.readString(first.log());
                assertThat(status)
                        .as("the thawed job's exit status; see " + first.log())
                        .isNotZero();
                assertThat(log).contains(OWNERSHIP_ERROR);
                // A checkpoint already started when the job was frozen may still complete; none
                // that it starts once it runs again does.
                long inFlight = completedAtFreeze + 1;
                assertThat(runs.latestIn(0).orElseThrow().id())
                        .as("the thawed job's newest completed checkpoint")
                        .isLessThanOrEqualTo(inFlight);
                assertThat(runs.deliveries(0))
                        .as("what the thawed job's sinks logged, by checkpoint")
                        .allMatch(d -> d.unit() <= inFlight);
                assertThat(taker.isAlive()).as("the job that took over runs on").isTrue();

                bed.stopWriting();
                Map<String, String> expected = bed.truth.expected();
                awaitWhileAlive(
                        taker,
                        "the second job to deliver every change",
                        () ->
                                runs.audit(expected).missingFrom(expected) == 0
                                        && bed.diff().matches()
                                        && bed.sinkDiff().matches());
                DeliveryAudit.Report report = runs.audit(expected);
                assertThat(report.violations()).as("change log audit in " + bed.dir).isEmpty();
                assertThat(report.committed()).hasSize(expected.size());
            } finally {
                first.killQuietly();
                if (second != null) {
                    second.killQuietly();
                }
            }
        }
    }

    /** Whether the newest batch of the Spark checkpoint's offset log is in its commit log. */
    private static boolean allBatchesCommitted(Path checkpoint) {
        Optional<Long> planned = newestBatch(checkpoint.resolve("offsets"));
        return planned.isPresent() && planned.equals(newestBatch(checkpoint.resolve("commits")));
    }

    private static Optional<Long> newestBatch(Path log) {
        if (!Files.isDirectory(log)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(log)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.matches("\\d+"))
                    .map(Long::parseLong)
                    .max(Long::compare);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean deliveredChanges(List<Delivery> deliveries) {
        return deliveries.stream().anyMatch(d -> d.complete() && !d.changes().isEmpty());
    }

    private static void awaitWhileAlive(ChildJvm child, String what, BooleanSupplier done) {
        Await.until(
                what,
                PROGRESS,
                () -> {
                    assertThat(child.isAlive()).as("the child runs; see " + child.log()).isTrue();
                    return done.getAsBoolean();
                });
    }
}
