package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.emulator.testkit.Await;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tablestore-cdc lease release} on the lease of a live Spark query (a child JVM) is refused;
 * after the query is killed with SIGKILL, and so stops renewing, it is accepted, and the command
 * prints the consumer it released.
 */
class LeaseReleaseITCase {

    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(150);

    @Test
    void aLiveQuerysLeaseIsKeptAndAKilledQuerysIsReleased() throws Exception {
        try (CrashBed bed = new CrashBed("lease-release", 200, 7L)) {
            TunnelOwner tunnel = new TunnelOwner(bed);
            SparkRuns spark = new SparkRuns(bed);
            ChildJvm query = spark.launch(0, 0);
            try {
                await(query, () -> spark.madeProgress(0));
                String consumer = tunnel.liveConsumer();
                List<String> release = tunnel.command("lease", "release", "--consumer", consumer);

                TunnelOwner.Run refused = TunnelOwner.cli(Clock.systemUTC(), release);

                assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
                assertThat(refused.err()).contains("Refused", consumer, "still running");

                query.kill();
                // Killed, it renews no more: two renewal periods on, the lease is not renewed.
                Clock later =
                        Clock.offset(
                                Clock.systemUTC(), OwnerLeaseKeeper.RENEW_EVERY.multipliedBy(2));
                TunnelOwner.Run released = TunnelOwner.cli(later, release);

                assertThat(released.exitCode()).as(released.toString()).isZero();
                assertThat(released.out()).contains("Released the lease", consumer, "spark query");
                assertThat(tunnel.lease()).isEmpty();
            } finally {
                query.killQuietly();
            }
        }
    }

    private static void await(ChildJvm child, java.util.function.BooleanSupplier done) {
        Await.until(
                "the query's progress (its change log)",
                PROGRESS_TIMEOUT,
                () -> {
                    assertThat(child.isAlive()).as("the query runs; see " + child.log()).isTrue();
                    return done.getAsBoolean();
                });
    }
}
