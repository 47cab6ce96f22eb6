package io.tablestorecdc.emulator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.emulator.EmulatorMain;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone emulator and its command line as separate processes, the way the emulator's README
 * shows them: start with {@code --load}, then read and write with commands.
 */
class StandaloneCliITCase {

    @TempDir Path dir;

    @Test
    void aLoadedEmulatorIsReadAndWrittenFromTheShell() throws Exception {
        Path seed = dir.resolve("seed.json");
        Files.writeString(
                seed,
                "{\"tables\":[{\"name\":\"orders\",\"primaryKey\":\"id:STRING\","
                        + "\"rows\":[{\"id\":\"o1\",\"amount\":10}]}]}");
        Process server =
                java(EmulatorMain.class.getName(), "--port", "0", "--load", seed.toString());
        try {
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertThat(ready).startsWith("tablestore-emulator ready endpoint=http://127.0.0.1:");
            String endpoint = ready.replaceAll(".*endpoint=(\\S+).*", "$1");

            assertThat(
                            command(
                                    "put",
                                    "--endpoint",
                                    endpoint,
                                    "--table",
                                    "orders",
                                    "--row",
                                    "{\"id\":\"o2\",\"amount\":20}"))
                    .containsExactly("put 1 row(s) into orders");
            assertThat(command("scan", "--endpoint", endpoint, "--table", "orders"))
                    .containsExactly(
                            "{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o2\",\"amount\":20}");
        } finally {
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Runs a command in its own JVM; its stdout lines (it must exit 0). */
    private static List<String> command(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(EmulatorMain.class.getName()));
        all.addAll(List.of(args));
        Process process = java(all.toArray(String[]::new));
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("exit code of %s", List.of(args)).isZero();
        return stdout.lines().toList();
    }

    private static Process java(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
