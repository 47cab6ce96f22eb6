package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.IOException;
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

    private static final String README = "tablestore-emulator/README.md";

    @TempDir Path workDir;

    @Test
    void theReadmesShellBlockRunsAsWritten() throws Exception {
        String block = shellBlock(DocPages.read(README));
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            String script =
                    block.replace(
                            "E=http://127.0.0.1:PORT", "E=http://127.0.0.1:" + emulator.port());
            // The block names the jar relative to the checkout, and writes rows.jsonl where it
            // runs: run it in a directory of its own where that path is the jar this build made.
            DocPages.checkoutWithTheJar(workDir);
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
