package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.cli.TablestoreCdcCli;
import io.tablestorecdc.e2e.DemoTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tablestore-cdc lease release} on the lease of a live Spark query (a child JVM) is refused;
 * after the query is killed with SIGKILL, and so stops renewing, it is accepted, and the command
 * prints the consumer it released.
 */
class LeaseReleaseITCase {

    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(150);

    /** One run of the command line: its exit code and output. */
    private record Run(int exitCode, String out, String err) {}

    @Test
    void aLiveQuerysLeaseIsKeptAndAKilledQuerysIsReleased() throws Exception {
        try (CrashBed bed = new CrashBed("lease-release", 200, 7L)) {
            Path credentials = credentials(bed);
            SparkRuns spark = new SparkRuns(bed);
            ChildJvm query = spark.launch(0, 0);
            try {
                await(query, () -> spark.madeProgress(0));
                String consumer = owner(bed, credentials).get("consumer").getAsString();
                List<String> release =
                        command(bed, credentials, "lease", "release", "--consumer", consumer);

                Run refused = cli(Clock.systemUTC(), release);

                assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
                assertThat(refused.err()).contains("Refused", consumer, "still running");

                query.kill();
                // Killed, it renews no more: two renewal periods on, the lease is not renewed.
                Clock later =
                        Clock.offset(
                                Clock.systemUTC(), OwnerLeaseKeeper.RENEW_EVERY.multipliedBy(2));
                Run released = cli(later, release);

                assertThat(released.exitCode()).as(released.toString()).isZero();
                assertThat(released.out()).contains("Released the lease", consumer, "spark query");
                assertThat(describe(bed, credentials).get("owner").isJsonNull()).isTrue();
            } finally {
                query.killQuietly();
            }
        }
    }

    private static Path credentials(CrashBed bed) throws Exception {
        DemoTarget target = bed.target();
        return Files.writeString(
                bed.dir.resolve("tablestore.properties"),
                "access.key.id="
                        + target.accessKeyId()
                        + "\naccess.key.secret="
                        + target.accessKeySecret()
                        + "\n");
    }

    private static JsonObject describe(CrashBed bed, Path credentials) {
        Run run = cli(Clock.systemUTC(), command(bed, credentials, "describe", "--json"));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return JsonParser.parseString(run.out()).getAsJsonObject();
    }

    private static JsonObject owner(CrashBed bed, Path credentials) {
        JsonObject describe = describe(bed, credentials);
        assertThat(describe.get("owner").isJsonObject()).as(describe.toString()).isTrue();
        JsonObject owner = describe.getAsJsonObject("owner");
        assertThat(owner.get("state").getAsString()).isEqualTo("live");
        return owner;
    }

    private static List<String> command(CrashBed bed, Path credentials, String... words) {
        DemoTarget target = bed.target();
        List<String> args = new ArrayList<>(List.of(words));
        args.addAll(
                List.of(
                        "--endpoint", target.endpoint(),
                        "--instance", target.instanceName(),
                        "--credentials-file", credentials.toString(),
                        "--table", CrashBed.TABLE,
                        "--tunnel", CrashBed.TUNNEL));
        return args;
    }

    private static Run cli(Clock clock, List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                TablestoreCdcCli.run(
                        args.toArray(String[]::new),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        clock);
        return new Run(code, out.toString(), err.toString());
    }

    private static void await(ChildJvm child, java.util.function.BooleanSupplier done)
            throws InterruptedException {
        long deadline = System.nanoTime() + PROGRESS_TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            assertThat(child.isAlive()).as("the query runs; see " + child.log()).isTrue();
            assertThat(System.nanoTime())
                    .as("progress within " + PROGRESS_TIMEOUT)
                    .isLessThan(deadline);
            Thread.sleep(100); // polling the child's change log
        }
    }
}
