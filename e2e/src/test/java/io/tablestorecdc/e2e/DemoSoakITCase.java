package io.tablestorecdc.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The long run of the demo (issue "end to end", test 5; profile {@code long} only): a continuous
 * write load for {@code tsc.soak.duration} (10 minutes in the profile) with a split or a merge
 * every minute, both engines replicating. The emulator runs in its own JVM, so the heap watched
 * here is the engines' alone. Nothing may be lost, the heap after GC must not grow, and the meta
 * table must stay within what its retention allows: per tunnel, the kept snapshots times the
 * channels the server lists (finished channels stay in snapshots as tombstones while the server
 * lists them, so that bound grows with splits and merges, not with batches or time).
 */
@EnabledIfSystemProperty(named = "tsc.soak.duration", matches = ".+")
class DemoSoakITCase {

    private static final Pattern READY = Pattern.compile("ready endpoint=(\\S+) instance=(\\S+)");
    private static final long HEAP_SLACK_BYTES = 64L << 20;

    /** Snapshots kept per tunnel: Spark's default {@code meta.retention.batches}, Flink's. */
    private static final int SPARK_SNAPSHOTS = 100;

    private static final int FLINK_SNAPSHOTS = 3;

    @Test
    void tenMinutesOfWritesSplitsAndMergesLoseNothingAndStayBounded() throws Exception {
        Path log = Paths.get("target", "soak-emulator.log");
        Process emulator = startEmulator(log.toFile());
        try {
            Matcher ready = awaitReady(emulator);
            Demo demo =
                    new Demo(
                            DemoSettings.parse(
                                    "--duration",
                                    System.getProperty("tsc.soak.duration"),
                                    "--reshard-every",
                                    System.getProperty("tsc.soak.reshard-every", "60s"),
                                    "--watch-every",
                                    System.getProperty("tsc.soak.watch-every", "20s"),
                                    "--catch-up-timeout",
                                    "180s",
                                    "--endpoint",
                                    ready.group(1),
                                    "--instance",
                                    ready.group(2),
                                    "--access-key-id",
                                    "emulator-id",
                                    "--access-key-secret",
                                    "emulator-secret"),
                            new Console(System.out));

            assertThat(demo.run()).as("both replicas match the source table").isTrue();

            List<ResourceWatch.Sample> samples = demo.watched();
            assertThat(samples).hasSizeGreaterThanOrEqualTo(6);
            ResourceWatch.Trend heap = ResourceWatch.heapTrend(samples);
            assertThat(heap.lastMax())
                    .as("heap after GC in the last third vs the middle third: %s", samples)
                    .isLessThanOrEqualTo(
                            heap.middleMax() + heap.middleMax() / 4 + HEAP_SLACK_BYTES);
            long channels = 2 * partitionCount(ready.group(1), "orders"); // base + stream
            long allowed =
                    (SPARK_SNAPSHOTS + 2 + FLINK_SNAPSHOTS + 2) * (channels + 2)
                            + 2 * channels
                            + 2; // each engine's catch-up report
            assertThat(samples.get(samples.size() - 1).metaRows())
                    .as("meta-table rows at the end, at most %d for %d channels", allowed, channels)
                    .isLessThanOrEqualTo(allowed);
        } finally {
            emulator.destroyForcibly().waitFor();
        }
    }

    /** Partitions the emulator has made for {@code table}, ended ones included. */
    private static long partitionCount(String endpoint, String table) throws Exception {
        String json =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        endpoint
                                                                + "/_emulator/partitions?table="
                                                                + table))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
        return Pattern.compile("\"id\"").matcher(json).results().count();
    }

    private static Process startEmulator(File log) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.tablestorecdc.emulator.EmulatorMain")
                .redirectError(log)
                .start();
    }

    private static Matcher awaitReady(Process emulator) throws Exception {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(emulator.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine(); // blocks until the emulator serves, or ends at its exit
        assertThat(line).as("the emulator's ready line").isNotNull();
        Matcher ready = READY.matcher(line);
        assertThat(ready.find()).as(line).isTrue();
        return ready;
    }
}
