package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.testkit.FirstRunWarnings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Spark application that reads with this source exits when its {@code main} returns after {@code
 * spark.stop()}: the source's shared clients (whose SDK I/O threads are not daemons) are closed
 * when the application ends, not only after their idle timeout. And its first run, which creates
 * the tunnel and the meta table, logs no warning of ours or the SDK's.
 */
class ApplicationExitITCase {

    /** What a user accepts between {@code main} returning and the JVM ending. */
    private static final Duration EXIT_WITHIN = Duration.ofSeconds(5);

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
    void aFirstRunIsQuietAndTheJvmEndsSoonAfterMainReturns() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 1, "x");
        List<String> cmd = CdcTestBed.childJvm(StopThenReturn.class);
        cmd.addAll(
                List.of(
                        bed.emulator.endpoint(),
                        bed.emulator.instanceName(),
                        bed.emulator.accessKeyId(),
                        CdcTestBed.SECRET,
                        table,
                        table + "_exit"));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.equals(StopThenReturn.RETURNED)) {
                seen.append(line).append('\n');
            }
            assertThat(line)
                    .as("main returned; output:\n%s", seen)
                    .isEqualTo(StopThenReturn.RETURNED);
            long returned = System.nanoTime();
            // Keep draining the output so the child never blocks on a full pipe.
            Thread drain = new Thread(() -> out.lines().forEach(l -> {}));
            drain.setDaemon(true);
            drain.start();

            boolean exited = child.waitFor(EXIT_WITHIN.toMillis() * 6, TimeUnit.MILLISECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - returned);
            assertThat(exited).as("the JVM ended at all").isTrue();
            assertThat(took).as("time from main's return to the JVM's end").isLessThan(EXIT_WITHIN);
            assertThat(child.exitValue()).isZero();
            // A correct first run (the tunnel and the meta table created on the way) logs no
            // warning of ours or the SDK's: a newcomer reads one as a failure. Spark's own
            // start-up warnings (host name, native Hadoop) are not ours to silence.
            assertThat(FirstRunWarnings.of(seen.toString().lines())).isEmpty();
        } finally {
            child.destroyForcibly();
        }
    }
}
