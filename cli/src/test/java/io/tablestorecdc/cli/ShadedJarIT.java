package io.tablestorecdc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runnable {@code tablestore-cdc-cli.jar} starts with {@code java -jar} and carries our
 * LICENSE, the licences of its non-Apache parts, and a NOTICE that names every artifact it bundles.
 * Runs in the integration-test phase, after the jar is built.
 */
class ShadedJarIT {

    /** The bundled jars' own licence files, which ours replace. */
    private static final Pattern BUNDLED_LICENCE_FILES =
            Pattern.compile(
                    "(META-INF/)?(LICENSE|NOTICE)\\.txt|LICENSE|NOTICE|META-INF/DEPENDENCIES");

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
        try (JarFile jar = new JarFile(jar().toFile())) {
            assertThat(text(jar, "META-INF/LICENSE"))
                    .isEqualTo(
                            Files.readString(
                                    Path.of(System.getProperty("tsc.license", "missing")),
                                    StandardCharsets.ISO_8859_1));
            String notice = text(jar, "META-INF/NOTICE");
            assertThat(notice)
                    .startsWith("tablestore-cdc command line")
                    .contains("info.picocli:picocli", "the Tablestore Java SDK");
            assertThat(bundledArtifacts(jar))
                    .isNotEmpty()
                    .allSatisfy(a -> assertThat(notice).contains(a));
            assertThat(jar.getJarEntry("picocli/CommandLine.class")).isNotNull();
            assertThat(text(jar, "META-INF/licenses/LICENSE.protobuf")).contains("Google Inc.");
            assertThat(text(jar, "META-INF/licenses/LICENSE.slf4j")).contains("QOS.ch");
            assertThat(jar.stream().map(JarEntry::getName))
                    .noneMatch(n -> BUNDLED_LICENCE_FILES.matcher(n).matches());
        }
    }

    private static String text(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** groupId:artifactId of every bundled artifact that left its Maven metadata in the jar. */
    private static List<String> bundledArtifacts(JarFile jar) throws IOException {
        List<String> artifacts = new ArrayList<>();
        for (JarEntry e : jar.stream().toList()) {
            if (e.getName().startsWith("META-INF/maven/")
                    && e.getName().endsWith("/pom.properties")) {
                Properties pom = new Properties();
                try (InputStream in = jar.getInputStream(e)) {
                    pom.load(in);
                }
                if (!pom.getProperty("groupId").equals("io.tablestorecdc")) {
                    artifacts.add(pom.getProperty("groupId") + ":" + pom.getProperty("artifactId"));
                }
            }
        }
        return artifacts;
    }
}
