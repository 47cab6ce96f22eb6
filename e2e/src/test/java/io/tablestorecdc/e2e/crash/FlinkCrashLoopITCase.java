package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Flink crash loop: a Flink job (a local cluster in a child JVM) replicating the orders table
 * into an upsert replica and an append-only change log is killed with SIGKILL N times (at random
 * moments, right after splits and merges, while a checkpoint is being taken) and restored each time
 * from the latest retained checkpoint found on disk, while writes go on. In the end the replica
 * equals the source table, and the changes logged up to each checkpoint that a restore started from
 * hold every change the source wrote exactly once, in commit order per key. See
 * docs/exactly-once.md.
 *
 * <p>{@code -Dcrash.flink.kills=N} (default 5; the {@code long} profile runs 15) and {@code
 * -Dcrash.seed=S} to repeat a run.
 */
class FlinkCrashLoopITCase {

    @Test
    void killedJobsRestoredFromTheirLatestRetainedCheckpointLoseAndDuplicateNothing()
            throws Exception {
        int kills = Integer.getInteger("crash.flink.kills", 5);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        long start = System.nanoTime();
        System.out.printf(
                "flink crash loop: %d kills, seed %d (-Dcrash.seed=%d)%n", kills, seed, seed);
        try (CrashBed bed = new CrashBed("flink", 300, seed)) {
            FlinkRuns runs = new FlinkRuns(bed);
            bed.startWriting(30);
            CrashLoop.Outcome outcome =
                    new CrashLoop(bed, runs, seed).run(kills, Duration.ofSeconds(150));
            CrashAssertions.printSummary("flink", outcome, seed, start);

            String context = "seed " + seed + ", change logs and checkpoints in " + bed.dir;
            CrashAssertions.assertExactlyOnceThroughLineage(outcome, kills, context);
            for (int run = 1; run <= kills; run++) {
                assertThat(runs.restoreOf(run))
                        .as("run %d was restored from a retained checkpoint (%s)", run, context)
                        .isPresent();
            }
            for (CrashLoop.Kill kill : outcome.kills()) {
                if (kill.kind() == CrashLoop.Kind.COMMIT) {
                    FlinkRuns.Restore next = runs.restoreOf(kill.run() + 1).orElseThrow();
                    assertThat(
                                    next.producer() < kill.run()
                                            || next.id() < kill.heldUnit().getAsLong())
                            .as(
                                    "checkpoint %d, held in run %d, never completed; the next run"
                                            + " restored from %s (%s)",
                                    kill.heldUnit().getAsLong(), kill.run(), next, context)
                            .isTrue();
                }
            }
        }
    }
}
