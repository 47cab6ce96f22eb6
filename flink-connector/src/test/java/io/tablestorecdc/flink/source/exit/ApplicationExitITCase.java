package io.tablestorecdc.flink.source.exit;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.emulator.testkit.FirstRunWarnings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Flink application that reads with this source exits when its {@code main} returns after {@code
 * execute()}: the source's SDK clients (whose I/O threads are not daemons) are closed with the job,
 * not left to keep the JVM alive.
 */
class ApplicationExitITCase {

    /** What a user accepts between {@code main} returning and the JVM ending. */
    private static final Duration EXIT_WITHIN = Duration.ofSeconds(5);

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    @Test
    void aFirstRunIsQuietAndTheJvmEndsSoonAfterMainReturns() throws Exception {
        String table = bed.newTable("exit");
        bed.put(table, "a", new Column("v", ColumnValue.fromLong(1)));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FlinkStopThenReturn.class.getName());
        cmd.addAll(
                List.of(
                        bed.emulator().endpoint(),
                        bed.emulator().instanceName(),
                        bed.emulator().accessKeyId(),
                        bed.emulator().accessKeySecret(),
                        table,
                        table + "_exit"));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            String line;
            while ((line = out.readLine()) != null && !line.equals(FlinkStopThenReturn.RETURNED)) {
                seen.append(line).append('\n');
            }
            assertThat(line)
                    .as("main returned; output:\n%s", seen)
                    .isEqualTo(FlinkStopThenReturn.RETURNED);
            long returned = System.nanoTime();
            Thread drain = new Thread(() -> out.lines().forEach(l -> {}));
            drain.setDaemon(true);
            drain.start();

            boolean exited = child.waitFor(EXIT_WITHIN.toMillis() * 6, TimeUnit.MILLISECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - returned);
            assertThat(exited).as("the JVM ended at all").isTrue();
            assertThat(took).as("time from main's return to the JVM's end").isLessThan(EXIT_WITHIN);
            assertThat(child.exitValue()).isZero();
            // A correct first run (the tunnel and the meta table created on the way) logs no
            // warning of ours or the SDK's: a newcomer reads one as a failure. Flink's own
            // start-up warnings (delegation tokens, the web UI's log file) are not ours.
            assertThat(FirstRunWarnings.of(seen.toString().lines())).isEmpty();
        } finally {
            child.destroyForcibly();
        }
    }
}
