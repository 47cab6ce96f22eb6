package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Spark crash loop: a Spark driver in a child JVM, replicating the orders table into an upsert
 * replica and an append-only change log, is killed with SIGKILL N times (at random moments, right
 * after splits and merges, inside a commit) and restarted on the same checkpoint location while
 * writes go on. In the end the replica equals the source table and the change log holds every
 * change the source wrote exactly once per batch id, in commit order per key; a batch id seen twice
 * carries the same records both times. See docs/exactly-once.md.
 *
 * <p>{@code -Dcrash.spark.kills=N} (default 10; the {@code long} profile runs 30) and {@code
 * -Dcrash.seed=S} to repeat a run.
 */
class SparkCrashLoopITCase {

    @Test
    void killedDriversRestartedOnTheirCheckpointLoseAndDuplicateNothing() throws Exception {
        int kills = Integer.getInteger("crash.spark.kills", 10);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        long start = System.nanoTime();
        System.out.printf(
                "spark crash loop: %d kills, seed %d (-Dcrash.seed=%d)%n", kills, seed, seed);
        try (CrashBed bed = new CrashBed("spark", 300, seed)) {
            SparkRuns runs = new SparkRuns(bed);
            bed.startWriting(20);
            CrashLoop.Outcome outcome =
                    new CrashLoop(bed, runs, seed).run(kills, Duration.ofSeconds(150));
            CrashAssertions.printSummary("spark", outcome, seed, start);

            String context = "seed " + seed + ", change logs in " + bed.dir;
            CrashAssertions.assertExactlyOnceThroughLineage(outcome, kills, context);
            for (CrashLoop.Kill kill : outcome.kills()) {
                if (kill.kind() == CrashLoop.Kind.COMMIT) {
                    long batch = kill.heldUnit().getAsLong();
                    assertThat(runs.deliveries())
                            .as(
                                    "batch %d, held uncommitted in run %d, runs again (%s)",
                                    batch, kill.run(), context)
                            .anyMatch(
                                    d -> d.run() > kill.run() && d.unit() == batch && d.complete());
                }
            }
        }
    }
}
