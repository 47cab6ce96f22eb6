package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A driver in a child JVM killed with SIGKILL at varying points of its batches, then restarted on
 * the same checkpoint: the file sink ends up with exactly the changes, none lost or doubled (issue
 * item 3). The kill points are spread over the batch cycle (planning, reading and filling, sink
 * commit, commit log) by killing at random moments while batches run; {@link CrashPointsITCase}
 * kills at each named point deterministically.
 */
class CrashRecoveryITCase {

    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void killedAndRestartedDriversLeaveExactlyTheChangesInTheFileSink() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 60; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
        String tunnel = table + "_tunnel";
        Path out = Files.createTempDirectory("crash-out");
        Path checkpoint = Files.createTempDirectory("crash-ckpt");
        Random random = new Random(42);

        for (int kill = 0; kill < 3; kill++) {
            Process child = launch(table, tunnel, out, checkpoint, "continuous", "run-" + kill);
            long before = committedBatchFiles(out);
            CdcTestBed.awaitCondition(
                    "a new sink file",
                    java.time.Duration.ofSeconds(90),
                    () -> committedBatchFiles(out) > before || !child.isAlive());
            assertThat(child.isAlive())
                    .as(
                            "child runs; see %s",
                            out.resolveSibling(out.getFileName() + "-run-" + kill + ".log"))
                    .isTrue();
            Thread.sleep(random.nextInt(900));
            child.destroyForcibly().waitFor();
            // The next run shuts the dead driver's tunnel client down itself; without that the
            // client would hold its channels until the server's heartbeat timeout.
        }
        Process last = launch(table, tunnel, out, checkpoint, "available-now", "run-last");
        assertThat(last.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(last.exitValue())
                .as("see %s", out.resolveSibling(out.getFileName() + "-run-last.log"))
                .isZero();

        List<String> ids =
                bed.spark.read().json(out.toString()).select("id").collectAsList().stream()
                        .map(r -> r.getString(0))
                        .sorted()
                        .toList();
        assertThat(ids)
                .containsExactlyElementsOf(
                        IntStream.range(0, 60).mapToObj(i -> String.format("k%02d", i)).toList());
    }

    private static long committedBatchFiles(Path out) {
        Path log = out.resolve("_spark_metadata");
        if (!Files.isDirectory(log)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(log)) {
            return files.filter(p -> !p.getFileName().toString().startsWith(".")).count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private static Process launch(
            String table, String tunnel, Path out, Path checkpoint, String trigger, String logName)
            throws java.io.IOException {
        List<String> cmd = CdcTestBed.childJvm(CrashableQuery.class);
        cmd.addAll(
                List.of(
                        bed.emulator.endpoint(),
                        bed.emulator.instanceName(),
                        bed.emulator.accessKeyId(),
                        CdcTestBed.SECRET,
                        table,
                        tunnel,
                        out.toString(),
                        checkpoint.toString(),
                        trigger));
        File log = out.resolveSibling(out.getFileName() + "-" + logName + ".log").toFile();
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    }
}
