package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar alone, plus Spark's own dependencies, runs a query in a fresh JVM, and the jar
 * carries our LICENSE and a NOTICE that names what it bundles. Runs in the integration-test phase,
 * after the jar is built.
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

    /** Our non-provided dependencies: the shaded jar must bring them itself. */
    private static final List<String> LEFT_OUT =
            List.of(
                    "/com/aliyun/openservices/",
                    "/io/tablestorecdc/",
                    "/com/github/ben-manes/",
                    "/com/google/guava/guava/27",
                    "/com/google/code/gson/gson/2.9.0/",
                    "/joda-time/joda-time/2.9.1/",
                    "/com/lmax/",
                    "/com/google/flatbuffers/");

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        ShadedJarLicences.check(
                Path.of(System.getProperty("tsc.shaded.jar")),
                "tablestore-cdc Spark connector",
                List.of("the Tablestore Java SDK", "com.google.protobuf:protobuf-java"),
                List.of("LICENSE.protobuf"));
    }

    @Test
    void aQueryRunsWithTheShadedJarOnASparkClasspath() throws Exception {
        Path jar = Path.of(System.getProperty("tsc.shaded.jar"));
        assertThat(jar).exists();
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start();
                CdcWriter writer = new CdcWriter(emulator)) {
            String table = writer.table();
            Path out = Files.createTempDirectory("shaded-out");
            Path checkpoint = Files.createTempDirectory("shaded-ckpt");

            Process child =
                    new ProcessBuilder(command(jar, emulator, table, out, checkpoint))
                            .redirectErrorStream(true)
                            .redirectOutput(out.resolveSibling(out.getFileName() + ".log").toFile())
                            .start();
            boolean done = child.waitFor(120, TimeUnit.SECONDS);
            if (!done) {
                child.destroyForcibly();
            }
            String log = Files.readString(out.resolveSibling(out.getFileName() + ".log"));

            assertThat(done).as("child finished; log:%n%s", tail(log)).isTrue();
            assertThat(child.exitValue()).as("exit code; log:%n%s", tail(log)).isZero();
            assertThat(idsIn(out)).containsExactlyInAnyOrder("a", "b", "c");
        }
    }

    private static List<String> command(
            Path jar, TablestoreEmulator emulator, String table, Path out, Path checkpoint) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(
                        a ->
                                a.startsWith("--add-opens")
                                        || a.startsWith("-XX:+Ignore")
                                        || a.startsWith("-Djdk.reflect"))
                .forEach(cmd::add);
        cmd.add("-cp");
        cmd.add(classpath(jar));
        cmd.add(ShadedJarQuery.class.getName());
        cmd.addAll(
                List.of(
                        emulator.endpoint(),
                        emulator.instanceName(),
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        table,
                        table + "_tunnel",
                        out.toString(),
                        checkpoint.toString()));
        return cmd;
    }

    /** Spark's classpath from this JVM, minus our dependencies and classes, plus the jar. */
    private static String classpath(Path jar) {
        String mainClasses = new File(System.getProperty("tsc.main.classes")).getAbsolutePath();
        List<String> entries = new ArrayList<>();
        entries.add(jar.toString());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String abs = new File(entry).getAbsolutePath();
            boolean ours = LEFT_OUT.stream().anyMatch(abs::contains) || abs.equals(mainClasses);
            if (!ours) {
                entries.add(abs);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static List<String> idsIn(Path dir) throws IOException {
        List<String> ids = new ArrayList<>();
        Pattern id = Pattern.compile("\\\"id\\\":\\\"([^\\\"]+)\\\"");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f :
                    files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
                Matcher m = id.matcher(Files.readString(f));
                while (m.find()) {
                    ids.add(m.group(1));
                }
            }
        }
        return ids;
    }

    private static String tail(String log) {
        return log.length() <= 6000 ? log : log.substring(log.length() - 6000);
    }

    /** Writes three rows with the plain SDK in this JVM. */
    private static final class CdcWriter implements AutoCloseable {
        private final com.alicloud.openservices.tablestore.SyncClient sync;
        private final String table = "shaded_t";

        CdcWriter(TablestoreEmulator emulator) {
            sync =
                    new com.alicloud.openservices.tablestore.SyncClient(
                            emulator.endpoint(),
                            emulator.accessKeyId(),
                            emulator.accessKeySecret(),
                            emulator.instanceName());
            com.alicloud.openservices.tablestore.model.TableMeta meta =
                    new com.alicloud.openservices.tablestore.model.TableMeta(table);
            meta.addPrimaryKeyColumn(
                    "id", com.alicloud.openservices.tablestore.model.PrimaryKeyType.STRING);
            sync.createTable(
                    new com.alicloud.openservices.tablestore.model.CreateTableRequest(
                            meta,
                            new com.alicloud.openservices.tablestore.model.TableOptions(-1, 1)));
            for (String id : List.of("a", "b", "c")) {
                com.alicloud.openservices.tablestore.model.RowPutChange change =
                        new com.alicloud.openservices.tablestore.model.RowPutChange(
                                table, CdcTestBed.key(id));
                change.addColumn(
                        new com.alicloud.openservices.tablestore.model.Column(
                                "v",
                                com.alicloud.openservices.tablestore.model.ColumnValue.fromLong(
                                        1)));
                sync.putRow(new com.alicloud.openservices.tablestore.model.PutRowRequest(change));
            }
        }

        String table() {
            return table;
        }

        @Override
        public void close() {
            sync.shutdown();
        }
    }
}
