package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PySpark program of docs/first-stream.md ("The same in PySpark"), which docs/spark.md links
 * to, runs as written with this module's shaded jar: the page's {@code spark-submit} line of this
 * module's Spark line, in a directory where the jar is at the path the line names, against an
 * emulator whose connection is in the environment variables the program reads.
 *
 * <p>It needs a {@code python3} that imports {@code pyspark} of this module's Spark line (a Spark
 * 3.5 jar does not load in Spark 4, nor the reverse); where there is none, the run is reported
 * skipped with the reason. The build installs no {@code pyspark}. What runs everywhere: the Spark
 * page links the program, each command names the jar its module builds, and (where {@code python3}
 * exists) the program is valid Python. Runs in the integration-test phase, after the jar is built.
 */
class PySparkDocIT {

    private static final Path SPARK_PAGE = Path.of("..", "docs", "spark.md");
    private static final Path START_PAGE = Path.of("..", "docs", "first-stream.md");
    private static final String HEADING = "## 7. The same in PySpark";

    @TempDir Path dir;

    @BeforeAll
    static void onlyOnceTheJarIsBuilt() {
        assumeTrue(System.getProperty("tsc.shaded.jar") != null, "runs in integration-test");
    }

    @Test
    void theSparkPageLinksTheProgramAndEachLineNamesTheJarItsModuleBuilds() throws IOException {
        String spark = Files.readString(SPARK_PAGE, StandardCharsets.UTF_8);
        String start = Files.readString(START_PAGE, StandardCharsets.UTF_8);
        assertThat(spark.substring(spark.indexOf("## From PySpark")))
                .contains("(first-stream.md#7-the-same-in-pyspark)");
        assertThat(commands(start, HEADING))
                .hasSize(2)
                .allMatch(c -> c.matches("spark-submit --jars \\S+-shaded\\.jar orders_cdc\\.py"))
                .contains(ownLine());
    }

    @Test
    void theProgramIsPython() throws Exception {
        Path file = dir.resolve("orders_cdc.py");
        Files.writeString(file, program(Files.readString(START_PAGE), HEADING));
        Result parsed =
                run(
                        List.of(
                                "python3",
                                "-c",
                                "import ast, sys; ast.parse(open(sys.argv[1]).read())",
                                file.toString()),
                        Map.of(),
                        60);
        assumeTrue(parsed != null, "no python3 on this machine");
        assertThat(parsed.status).as(parsed.output).isZero();
    }

    @Test
    void theProgramDrainsATableThroughTheShadedJar() throws Exception {
        String line = sparkLine(System.getProperty("tsc.spark.version"));
        Result probe =
                run(
                        List.of(
                                "python3",
                                "-c",
                                "import os, pyspark; print(pyspark.__version__);"
                                        + " print(os.path.dirname(pyspark.__file__))"),
                        Map.of(),
                        60);
        assumeTrue(
                probe != null && probe.status == 0,
                "python3 -c 'import pyspark' fails here: "
                        + (probe == null ? "no python3" : probe.output.strip()));
        List<String> found = probe.output.strip().lines().toList();
        String pyspark = found.get(found.size() - 2);
        assumeTrue(
                sparkLine(pyspark).equals(line),
                "pyspark " + pyspark + " is not this jar's Spark line " + line);

        String page = Files.readString(START_PAGE, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("orders_cdc.py"), program(page, HEADING));
        Path jar = Path.of(System.getProperty("tsc.shaded.jar")).toAbsolutePath();
        Path link = dir.resolve(moduleDir()).resolve("target").resolve(jar.getFileName());
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, jar);

        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            writeOrders(emulator);
            Map<String, String> env =
                    Map.of(
                            "TABLESTORE_ENDPOINT", emulator.endpoint(),
                            "TABLESTORE_INSTANCE", emulator.instanceName(),
                            "ALIBABA_CLOUD_ACCESS_KEY_ID", emulator.accessKeyId(),
                            "ALIBABA_CLOUD_ACCESS_KEY_SECRET", emulator.accessKeySecret(),
                            "PATH", path(Path.of(found.get(found.size() - 1))));
            Result submitted = run(List.of("bash", "-e", "-c", ownLine()), env, 300);
            assertThat(submitted).isNotNull();
            assertThat(submitted.status).as("exit code; output:%n%s", submitted.tail()).isZero();
        }

        SparkSession spark =
                SparkSession.builder()
                        .master("local[1]")
                        .appName("pyspark-doc-check")
                        .config("spark.ui.enabled", "false")
                        .getOrCreate();
        try {
            assertThat(
                            spark
                                    .read()
                                    .parquet(dir.resolve("orders_changes").toString())
                                    .selectExpr("id", "qty", "name", "_op")
                                    .collectAsList()
                                    .stream()
                                    .map(Row::toString)
                                    .sorted()
                                    .toList())
                    .containsExactly("[o1,1,one,PUT]", "[o2,2,two,PUT]", "[o3,3,three,PUT]");
        } finally {
            spark.stop();
        }
    }

    /** The {@code orders} table the program reads, with three rows written before it starts. */
    private static void writeOrders(TablestoreEmulator emulator) {
        SyncClient sync = emulator.newSyncClient();
        try {
            TableMeta meta = new TableMeta("orders");
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            String[] names = {"one", "two", "three"};
            for (int i = 1; i <= 3; i++) {
                RowPutChange change = new RowPutChange("orders", CdcTestBed.key("o" + i));
                change.addColumn(new Column("qty", ColumnValue.fromLong(i)));
                change.addColumn(new Column("name", ColumnValue.fromString(names[i - 1])));
                sync.putRow(new PutRowRequest(change));
            }
        } finally {
            sync.shutdown();
        }
    }

    /** The page's line for this module's jar, e.g. {@code spark-submit --jars <dir>/target/...}. */
    private static String ownLine() {
        String jar = Path.of(System.getProperty("tsc.shaded.jar")).getFileName().toString();
        return "spark-submit --jars " + moduleDir() + "/target/" + jar + " orders_cdc.py";
    }

    /** The module's folder in the checkout (the tests run there). */
    private static String moduleDir() {
        return Path.of("").toAbsolutePath().getFileName().toString();
    }

    /** {@code 4.2} of {@code 4.2.0} or {@code 4.2.0.dev0}. */
    private static String sparkLine(String version) {
        String[] parts = version.split("\\.");
        return parts[0] + "." + parts[1];
    }

    /** spark-submit from SPARK_HOME, else from the pyspark package, ahead of the machine's PATH. */
    private static String path(Path pysparkDir) {
        List<String> entries = new ArrayList<>();
        String home = System.getenv("SPARK_HOME");
        if (home != null) {
            entries.add(Path.of(home, "bin").toString());
        }
        entries.add(pysparkDir.resolve("bin").toString());
        entries.add(System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        return String.join(File.pathSeparator, entries);
    }

    /** The first {@code ```python} block after {@code heading}. */
    static String program(String page, String heading) {
        return block(page, heading, "```python\n");
    }

    /** The lines of the first plain {@code ```} block after the program under {@code heading}. */
    static List<String> commands(String page, String heading) {
        int program = page.indexOf("```python\n", page.indexOf(heading));
        String after = page.substring(page.indexOf("\n```\n", program) + 5);
        return block(after, "", "```\n").lines().toList();
    }

    private static String block(String page, String heading, String fence) {
        int section = page.indexOf(heading);
        assertThat(section).as("the page's %s", heading).isNotNegative();
        int open = page.indexOf(fence, section);
        assertThat(open).as("a %s block after %s", fence.strip(), heading).isNotNegative();
        open += fence.length();
        return page.substring(open, page.indexOf("\n```", open - 1) + 1);
    }

    /** Runs {@code command} in {@link #dir}; null when its program does not exist. */
    private Result run(List<String> command, Map<String, String> env, int seconds)
            throws InterruptedException, IOException {
        Path out = Files.createTempFile(dir, "out", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile());
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException notThere) {
            return null;
        }
        boolean done = process.waitFor(seconds, TimeUnit.SECONDS);
        if (!done) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(out);
        assertThat(done).as("%s finished in %d s; output:%n%s", command, seconds, output).isTrue();
        return new Result(process.exitValue(), output);
    }

    private record Result(int status, String output) {
        String tail() {
            return output.length() <= 8000 ? output : output.substring(output.length() - 8000);
        }
    }
}
