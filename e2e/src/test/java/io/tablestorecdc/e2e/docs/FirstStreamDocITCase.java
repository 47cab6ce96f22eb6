package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.cluster.FlinkSessionCluster;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.Await;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * docs/first-stream.md runs as written, in the page's order, against an emulator: its shell blocks
 * with bash, the Spark application in a fresh JVM with the page's flags file and command, the SQL
 * file through the SQL Client's own entry point on a standalone Flink session cluster, and {@code
 * bin/tablestore-cdc describe} of the checkout.
 *
 * <p>Substitutions, each checked where it is made: the emulator listens on a free port instead of
 * 8090 (the port in the page's variables and SQL is replaced); the page's {@code mvn
 * dependency:build-classpath} is answered with this build's test classpath (which holds the
 * connector and Spark the page's pom names: the pom's coordinates are checked against the build);
 * the Flink cluster is this build's session cluster with the page's variables in its environment,
 * not a downloaded distribution. The build command of step 1 is checked for what it builds, not run
 * (it is a build of the repository inside that build).
 */
class FirstStreamDocITCase {

    private static final String PAGE = "docs/first-stream.md";
    private static final Duration FLINK_ROWS_TIMEOUT = Duration.ofSeconds(120);

    @TempDir Path dir;

    @Test
    void theBuildCommandBuildsEveryArtifactThePageUses() throws Exception {
        String page = DocPages.read(PAGE);
        String block = DocPages.block(page, "## 1. Build", "```\n");
        List<List<String>> mvn = DocPages.invocations("mvn", block.lines().findFirst().get(), dir);
        assertThat(mvn).hasSize(1);
        List<String> args = mvn.get(0);
        assertThat(args).contains("install", "-DskipTests", "-am");
        String modules = args.get(args.indexOf("-pl") + 1);
        assertThat(Arrays.asList(modules.split(",")))
                .containsExactlyInAnyOrder(
                        "tablestore-emulator", "spark-connector", "flink-connector", "cli");
        assertThat(block).contains("java -jar " + DocPages.JAR_AS_DOCUMENTED + " --port 8090\n");
    }

    @Test
    void theSparkPomNamesTheConnectorAndTheSparkThisBuildUses() throws Exception {
        String pom = DocPages.block(DocPages.read(PAGE), "## 4. Spark", "```xml\n");
        Path file = Files.writeString(dir.resolve("pom.xml"), pom);
        Document user =
                javax.xml.parsers.DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(file.toFile());
        Document root = DocPages.pom("pom.xml");
        String connector = "/project/dependencies/dependency[groupId='io.tablestorecdc']/";
        assertThat(DocPages.xpath(user, connector + "artifactId"))
                .isEqualTo(
                        DocPages.xpath(
                                DocPages.pom("spark-connector/pom.xml"), "/project/artifactId"));
        assertThat(DocPages.xpath(user, connector + "version"))
                .isEqualTo(DocPages.xpath(root, "/project/version"));
        String spark = "/project/dependencies/dependency[groupId='org.apache.spark']/";
        assertThat(DocPages.xpath(user, spark + "artifactId"))
                .isEqualTo(
                        "spark-sql_"
                                + DocPages.xpath(root, "/project/properties/scala.binary.version"));
        assertThat(DocPages.xpath(user, spark + "version"))
                .isEqualTo(DocPages.xpath(root, "/project/properties/spark.version"));
    }

    @Test
    void theFlagsFileHoldsTheFlagsThisBuildRunsSparkWith() throws Exception {
        String flags = DocPages.block(DocPages.read(PAGE), "Save them as", "```\n");
        String build = DocPages.xpath(DocPages.pom("pom.xml"), "/project/properties/java17.opens");
        assertThat(flags.lines().toList()).isEqualTo(Arrays.asList(build.strip().split("\\s+")));
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
                .as("this test JVM's flags (surefire's argLine)")
                .containsAll(flags.lines().toList());
        assertThat(
                        DocPages.xpath(
                                DocPages.pom("e2e/pom.xml"),
                                "/project/build/plugins/plugin[artifactId='exec-maven-plugin']"
                                        + "/executions/execution[id='demo']/configuration/commandlineArgs"))
                .as("the demo's child JVM")
                .contains("${java17.opens}");
    }

    @Test
    void everyStepRunsAsWrittenAndEachEngineSeesTheTable() throws Exception {
        String page = DocPages.read(PAGE);
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            String port = Integer.toString(emulator.port());
            Map<String, String> env = variables(page, port);
            assertThat(env)
                    .containsEntry("TABLESTORE_ENDPOINT", emulator.endpoint())
                    .containsEntry("TABLESTORE_INSTANCE", emulator.instanceName())
                    .containsEntry("ALIBABA_CLOUD_ACCESS_KEY_ID", emulator.accessKeyId());
            DocPages.checkoutWithTheJar(dir);

            assertThat(bash(DocPages.block(page, "## 3. A table", "```\n"), dir, env))
                    .contains("created table orders", "put 1 row(s) into orders");

            // Step 4: the application twice, the table changed in between.
            Path app = Files.createDirectories(dir.resolve("first-stream"));
            Files.writeString(
                    app.resolve("FirstStream.java"),
                    DocPages.block(page, "## 4. Spark", "```java\n"));
            Files.writeString(
                    app.resolve("jvm.flags"), DocPages.block(page, "Save them as", "```\n"));
            String run = MVN_CLASSPATH + DocPages.block(page, "Then, in that directory", "```\n");
            String first = bash(run, app, env);
            assertThat(page).contains(first.substring(first.indexOf("+---")).strip());
            first = first.replace(" ", "");
            assertThat(first).contains("|PUT|o1|apples|3|", "|PUT|o2|pears|5|");
            assertThat(bash(DocPages.block(page, "run it again", "```\n"), dir, env))
                    .contains("updated", "deleted");
            String second = bash(run, app, env).replace(" ", "");
            assertThat(second)
                    .contains("|UPDATE|o1|NULL|4|", "|DELETE|o2|NULL|NULL|")
                    .doesNotContain("PUT");

            // Step 5: the SQL file through the SQL Client, on a cluster given the variables.
            String command = DocPages.block(page, "Submit it with", "```\n");
            Matcher submit =
                    Pattern.compile("^\\./bin/sql-client\\.sh -j (\\S+) -f first-stream\\.sql\n$")
                            .matcher(command);
            assertThat(submit.matches()).as("the page's SQL Client command: %s", command).isTrue();
            Path jar = FlinkSessionCluster.connectorJar();
            assertThat(Path.of(submit.group(1)).getFileName()).isEqualTo(jar.getFileName());
            String sql =
                    DocPages.block(page, "Save this as `first-stream.sql`", "```sql\n")
                            .replace("http://127.0.0.1:8090", emulator.endpoint());
            try (FlinkSessionCluster cluster =
                    FlinkSessionCluster.start(dir.resolve("flink"), env, 1)) {
                String out = cluster.runSqlClient(jar, "first-stream", sql);
                assertThat(out).doesNotContain(env.get("ALIBABA_CLOUD_ACCESS_KEY_SECRET"));
                Await.until(
                        "the row of the table in the TaskManager's output",
                        FLINK_ROWS_TIMEOUT,
                        () -> cluster.allLogs().contains("+I[o1, apples, 4]"));
                assertThat(cluster.allLogs()).doesNotContain("pears");
                // A change after the job started reaches the output too ("a -D for each delete").
                bash(
                        "java -jar "
                                + DocPages.JAR_AS_DOCUMENTED
                                + " delete --table orders --key '{\"id\":\"o1\"}'",
                        dir,
                        env);
                Await.until(
                        "the delete in the TaskManager's output",
                        FLINK_ROWS_TIMEOUT,
                        () -> cluster.allLogs().contains("-D[o1"));

                // Step 6: describe, as the page runs it, from the checkout.
                Map<String, String> cli = new LinkedHashMap<>(env);
                cli.put("TABLESTORE_CDC_JAR", System.getProperty("tsc.cli.jar"));
                assertThat(bash(DocPages.block(page, "## 6. Watch", "```\n"), DocPages.REPO, cli))
                        .contains("Tunnel 'orders-first-flink' of table 'orders'");
                for (String job : cluster.jobs("RUNNING")) {
                    cluster.cancel(job);
                }
            }
        }
    }

    /** Answers the page's classpath command with this build's test classpath. */
    private static final String MVN_CLASSPATH =
            "mvn() {\n"
                    + "  [ \"$*\" = '-q dependency:build-classpath -Dmdep.outputFile=cp.txt' ]"
                    + " || { echo \"unexpected mvn $*\"; exit 9; }\n"
                    + "  printf '%s' \"$TSC_TEST_CLASSPATH\" > cp.txt\n"
                    + "}\n";

    /** The page's {@code export} lines, the emulator's port in place of 8090. */
    private static Map<String, String> variables(String page, String port) {
        Map<String, String> env = new LinkedHashMap<>();
        Matcher export =
                Pattern.compile("^export (\\w+)=(\\S+)$", Pattern.MULTILINE)
                        .matcher(DocPages.block(page, "## 2. Where", "```\n"));
        while (export.find()) {
            env.put(export.group(1), export.group(2).replace(":8090", ":" + port));
        }
        assertThat(env).hasSize(4);
        return env;
    }

    /** Runs {@code script} with {@code bash -e} in {@code where}; its output, status 0. */
    private String bash(String script, Path where, Map<String, String> env) throws Exception {
        Path log = Files.createTempFile(dir, "bash", ".out");
        ProcessBuilder builder =
                new ProcessBuilder("bash", "-e", "-c", script)
                        .directory(where.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        builder.environment().put("TSC_TEST_CLASSPATH", System.getProperty("java.class.path"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        builder.environment()
                .put("PATH", Path.of(java).getParent() + ":" + builder.environment().get("PATH"));
        Process bash = builder.start();
        if (!bash.waitFor(5, TimeUnit.MINUTES)) {
            bash.destroyForcibly();
        }
        String out = Files.readString(log);
        assertThat(bash.isAlive()).as("still running:\n%s", script).isFalse();
        assertThat(bash.exitValue()).as("exit code of\n%s\noutput:\n%s", script, out).isZero();
        return out;
    }
}
