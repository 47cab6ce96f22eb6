package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runnable {@code tablestore-emulator.jar} starts and serves its shell commands printing only
 * what they are for (no logging-setup lines), says its version, and carries our LICENSE, the
 * licences of its non-Apache parts, and a NOTICE that names every artifact it bundles. Runs in the
 * integration-test phase, after the jar is built.
 */
class ShadedJarIT {

    /**
     * The build sets the jar's path only in the integration-test execution; a {@code -Dtest}
     * selection also runs this class in the test phase, before the jar is built, and skips it
     * there.
     */
    @BeforeAll
    static void onlyOnceTheJarIsBuilt() {
        assumeTrue(System.getProperty("tsc.shaded.jar") != null, "runs in integration-test");
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        Path path = Path.of(System.getProperty("tsc.shaded.jar", "missing"));
        ShadedJarLicences.check(
                path,
                "tablestore-cdc Tablestore emulator",
                List.of("the Tablestore Java SDK", "io.netty:netty-codec-http"),
                List.of("LICENSE.protobuf", "LICENSE.slf4j"));
        try (JarFile jar = new JarFile(path.toFile())) {
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.protobuf"))
                    .contains("Google Inc.");
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.slf4j"))
                    .contains("QOS.ch");
        }
    }

    @Test
    void theServerAndAShellCommandPrintWhatTheyAreForAndNothingElse() throws Exception {
        Process server =
                new ProcessBuilder(java(), "-jar", jar(), "--port", "0")
                        .redirectErrorStream(true)
                        .start();
        try {
            BufferedReader lines =
                    new BufferedReader(
                            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String first = lines.readLine();
            Matcher ready =
                    Pattern.compile("tablestore-emulator ready endpoint=(\\S+) instance=\\S+")
                            .matcher(String.valueOf(first));
            assertThat(ready.matches())
                    .as("the first line, with nothing about logging before it: %s", first)
                    .isTrue();

            Process shell =
                    new ProcessBuilder(
                                    java(),
                                    "-jar",
                                    jar(),
                                    "create-table",
                                    "--endpoint",
                                    ready.group(1),
                                    "--table",
                                    "orders",
                                    "--pk",
                                    "id:STRING")
                            .redirectErrorStream(true)
                            .start();
            String output =
                    new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(shell.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(output.strip()).isEqualTo("created table orders");
        } finally {
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void saysItsVersionInItsManifest() throws IOException {
        try (JarFile jar = new JarFile(jar())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Implementation-Version"))
                    .isEqualTo(System.getProperty("tsc.version"));
        }
    }

    private static String jar() {
        return System.getProperty("tsc.shaded.jar", "missing");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
