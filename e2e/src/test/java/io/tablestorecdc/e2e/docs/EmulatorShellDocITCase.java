package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell block of the emulator's README ("From the shell") runs as written: bash executes it
 * line by line with {@code -e}, the standalone jar as the README names it, against a running
 * emulator. The one substitution is the port in the {@code E=} line, which the reader takes from
 * the emulator's ready line.
 */
class EmulatorShellDocITCase {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path README = REPO.resolve("tablestore-emulator/README.md");
    private static final Path JAR =
            REPO.resolve("tablestore-emulator/target/tablestore-emulator.jar");

    @TempDir Path workDir;

    @Test
    void theReadmesShellBlockRunsAsWritten() throws Exception {
        assertThat(JAR)
                .as(
                        "the standalone jar (built by the emulator module's package phase;"
                                + " run mvn -pl tablestore-emulator package -DskipTests)")
                .exists();
        String block = shellBlock(Files.readString(README, StandardCharsets.UTF_8));
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            String script =
                    block.replace(
                            "E=http://127.0.0.1:PORT", "E=http://127.0.0.1:" + emulator.port());
            // The block names the jar relative to the checkout, and writes rows.jsonl where it
            // runs: run it in a directory of its own that sees the checkout's emulator module.
            Files.createSymbolicLink(
                    workDir.resolve("tablestore-emulator"), REPO.resolve("tablestore-emulator"));
            Path log = workDir.resolve("out.log");
            Process bash =
                    new ProcessBuilder("bash", "-e", "-c", script)
                            .directory(workDir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
            assertThat(bash.waitFor(5, TimeUnit.MINUTES)).as("the block finished").isTrue();
            String out = Files.readString(log);
            assertThat(bash.exitValue()).as("exit code; output:\n%s", out).isZero();

            List<String> lines = out.lines().toList();
            assertThat(lines)
                    .contains(
                            "created table orders",
                            "put 1 row(s) into orders",
                            "put 2 row(s) into orders",
                            "{\"id\":\"o2\",\"amount\":20}",
                            "{\"id\":\"o3\",\"amount\":30}",
                            "split of orders made partitions [\"p-1\",\"p-2\"]",
                            "merge of orders made partitions [\"p-3\"]");
            assertThat(lines).noneMatch(l -> l.startsWith("{\"id\":\"o1\""));
        }
    }

    /** The first fenced block after the "From the shell" heading. */
    private static String shellBlock(String readme) throws IOException {
        int section = readme.indexOf("### From the shell");
        assertThat(section).as("the README's \"From the shell\" section").isNotNegative();
        int open = readme.indexOf("```\n", section);
        int close = readme.indexOf("\n```", open + 4);
        return readme.substring(open + 4, close + 1);
    }
}
