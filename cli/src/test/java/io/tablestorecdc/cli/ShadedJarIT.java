package io.tablestorecdc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runnable {@code tablestore-cdc-cli.jar} starts with {@code java -jar} and carries our
 * LICENSE, the licences of its non-Apache parts, and a NOTICE that names every artifact it bundles.
 * Runs in the integration-test phase, after the jar is built.
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

    private static Path jar() {
        Path path = Path.of(System.getProperty("tsc.shaded.jar", "missing"));
        assertThat(path).as("the command-line jar (run through mvn verify)").exists();
        return path;
    }

    @Test
    void startsWithJavaDashJarAndPrintsItsHelp() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process =
                new ProcessBuilder(java.toString(), "-jar", jar().toString(), "--help")
                        .redirectErrorStream(true)
                        .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output)
                .startsWith("Usage: tablestore-cdc")
                .contains("tunnels", "describe", "lag", "lease", "meta", "reprocess");
    }

    @Test
    void printsItsVersion() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process =
                new ProcessBuilder(java.toString(), "-jar", jar().toString(), "--version")
                        .redirectErrorStream(true)
                        .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(output.strip()).isEqualTo("tablestore-cdc " + System.getProperty("tsc.version"));
    }

    @Test
    void theLauncherRunsTheJarAndPassesItsExitCode() throws IOException, InterruptedException {
        Path launcher = Path.of(System.getProperty("tsc.launcher", "missing"));
        ProcessBuilder builder =
                new ProcessBuilder("sh", launcher.toString(), "lag", "--max-lag", "soon")
                        .redirectErrorStream(true);
        builder.environment().put("TABLESTORE_CDC_JAR", jar().toString());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as(output).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(output).contains("Usage: tablestore-cdc lag");
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        ShadedJarLicences.check(
                jar(),
                "tablestore-cdc command line",
                List.of("info.picocli:picocli", "the Tablestore Java SDK"),
                List.of("LICENSE.protobuf", "LICENSE.slf4j"));
        try (JarFile jar = new JarFile(jar().toFile())) {
            assertThat(jar.getJarEntry("picocli/CommandLine.class")).isNotNull();
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.protobuf"))
                    .contains("Google Inc.");
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.slf4j"))
                    .contains("QOS.ch");
        }
    }
}
