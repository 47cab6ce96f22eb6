package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.Demo;
import io.tablestorecdc.e2e.DemoSettings;
import io.tablestorecdc.e2e.DemoSettings.Engine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The shell blocks of docs/getting-started.md (and the README's demo command) do what the page
 * says.
 *
 * <p>The block against a standalone emulator runs as written: its {@code java -jar} line starts the
 * jar this build made, the demo runs against it with the flags of its {@code -Ddemo.args}, and the
 * page's {@code scan} line reads the table back. Two substitutions: the emulator listens on a free
 * port instead of 8090 (a fixed port may be taken on a shared machine), and the demo is run with a
 * short workload added to the page's flags and in this JVM rather than by Maven.
 *
 * <p>The Maven command lines themselves are not run here: each is a full build of the repository
 * (and then a demo of over a minute), far more than a test inside that same build can afford. They
 * are checked instead for what would make them rot: bash parses each line as written (a recording
 * {@code mvn} function takes its arguments), the profile and execution they name exist in {@code
 * e2e/pom.xml} and start {@link Demo}, and every {@code -Ddemo.args} value parses with the demo's
 * own flag parser into the settings the page describes. {@code DemoITCase} runs the demo itself.
 */
class GettingStartedDocITCase {

    private static final String PAGE = "docs/getting-started.md";

    /** Added to the page's demo flags so the standalone run stays short. */
    private static final List<String> SHORT_RUN =
            List.of("--engine", "flink", "--rows", "100", "--duration", "2s", "--rate", "50");

    @TempDir Path dir;

    @Test
    void theDemoCommandsNameTheDemoProfileAndItsFlags() throws Exception {
        String page = DocPages.read(PAGE);
        String readme = DocPages.read("README.md");
        assertThat(DocPages.block(readme, "## The two commands", "```\n"))
                .isEqualTo(DocPages.block(page, "## Run it", "```\n"))
                .isEqualTo("mvn -B -q -Pdemo package -DskipTests\n");

        List<List<String>> run =
                DocPages.invocations("mvn", DocPages.block(page, "## Run it", "```\n"), dir);
        assertThat(run).containsExactly(List.of("-B", "-q", "-Pdemo", "package", "-DskipTests"));
        assertTheDemoProfileRunsTheDemoAtPackage();

        List<List<String>> withFlags =
                DocPages.invocations("mvn", DocPages.block(page, "Flags go in", "```\n"), dir);
        assertThat(withFlags).hasSize(1);
        assertThat(withFlags.get(0)).startsWith("-B", "-q", "-Pdemo", "package", "-DskipTests");
        DemoSettings settings =
                DemoSettings.parse(
                        DocPages.property(withFlags.get(0), "demo.args").toArray(String[]::new));
        assertThat(settings.engines()).containsExactly(Engine.SPARK);
        assertThat(settings.rows()).isEqualTo(10_000);
        assertThat(settings.duration()).isEqualTo(Duration.ofSeconds(60));

        // "Once the modules are installed (...), the demo alone is mvn -B -q -pl e2e
        // exec:exec@demo"
        Matcher alone =
                Pattern.compile("the demo alone is\\s+`(mvn [^`]+)`")
                        .matcher(page.replace('\n', ' '));
        assertThat(alone.find()).as("the page's command for the demo alone").isTrue();
        assertThat(DocPages.invocations("mvn", alone.group(1), dir))
                .containsExactly(List.of("-B", "-q", "-pl", "e2e", "exec:exec@demo"));
        // exec:exec@demo is the execution the profile binds; it is in the module's own build.
        assertThat(
                        DocPages.xpath(
                                pom(),
                                "/project/build/plugins/plugin[artifactId='exec-maven-plugin']"
                                        + "/executions/execution[id='demo']/goals/goal"))
                .isEqualTo("exec");
    }

    @Test
    void theOtherLinesCommandAddsTheProfileThatSwapsTheEngines() throws Exception {
        String page = DocPages.read(PAGE);
        String block = DocPages.block(page, "## On Flink 2.x and Spark 4", "```\n");
        assertThat(DocPages.invocations("mvn", block, dir))
                .containsExactly(
                        List.of("-B", "-q", "-Pdemo,next-engines", "package", "-DskipTests"));
        assertTheDemoProfileRunsTheDemoAtPackage();
        assertThat(DocPages.read("README.md").replaceAll("\\s+", " "))
                .as("the README's sentence on the other line")
                .contains("`" + block.strip() + "`");

        // The profile swaps in the other line's connector modules of this build and their engines.
        Document e2e = pom();
        Document root = DocPages.pom("pom.xml");
        String next = "/project/profiles/profile[id='next-engines']/properties/";
        assertThat(DocPages.xpath(e2e, next + "e2e.flink.connector"))
                .isEqualTo(
                        DocPages.xpath(
                                DocPages.pom("flink-connector-2/pom.xml"), "/project/artifactId"));
        assertThat(DocPages.xpath(e2e, next + "e2e.spark.connector"))
                .isEqualTo("tablestore-cdc-spark-4.2_${spark4.scala.binary.version}");
        // Each artifact names the engine line it is built for, as the pages say.
        Map<String, String> artifacts =
                Map.of(
                        "flink-connector/pom.xml",
                        "tablestore-cdc-flink-" + majorMinor(root, "flink.version"),
                        "flink-connector-2/pom.xml",
                        "tablestore-cdc-flink-" + majorMinor(root, "flink2.version"),
                        "spark-connector/pom.xml",
                        "tablestore-cdc-spark-"
                                + majorMinor(root, "spark.version")
                                + "_"
                                + DocPages.xpath(root, "/project/properties/scala.binary.version"),
                        "spark-connector-4/pom.xml",
                        "tablestore-cdc-spark-"
                                + majorMinor(root, "spark4.version")
                                + "_"
                                + DocPages.xpath(
                                        root, "/project/properties/spark4.scala.binary.version"));
        String readme = DocPages.read("README.md");
        for (Map.Entry<String, String> artifact : artifacts.entrySet()) {
            assertThat(DocPages.xpath(DocPages.pom(artifact.getKey()), "/project/artifactId"))
                    .as(artifact.getKey())
                    .isEqualTo(artifact.getValue());
            assertThat(readme).contains("`" + artifact.getValue() + "`");
        }
        assertThat(DocPages.xpath(e2e, "/project/properties/e2e.flink.connector"))
                .isEqualTo(artifacts.get("flink-connector/pom.xml"));
        assertThat(DocPages.xpath(e2e, "/project/properties/e2e.spark.connector"))
                .isEqualTo(artifacts.get("spark-connector/pom.xml"));
        for (String module : List.of("flink-connector-2", "spark-connector-4")) {
            assertThat(DocPages.xpath(root, "/project/modules/module[.='" + module + "']"))
                    .isEqualTo(module);
        }
        assertThat(DocPages.xpath(e2e, next + "flink.version")).isEqualTo("${flink2.version}");
        assertThat(DocPages.xpath(e2e, next + "flink.table.version"))
                .isEqualTo("${flink2.version}");
        assertThat(DocPages.xpath(e2e, next + "spark.version")).isEqualTo("${spark4.version}");
        assertThat(DocPages.xpath(e2e, next + "scala.binary.version"))
                .isEqualTo("${spark4.scala.binary.version}");
        assertThat(DocPages.xpath(e2e, next + "netty.version"))
                .isEqualTo(
                        DocPages.xpath(
                                DocPages.pom("spark-connector-4/pom.xml"),
                                "/project/properties/netty.version"));
        assertThat(page)
                .contains("Flink " + DocPages.xpath(root, "/project/properties/flink2.version"))
                .contains("Spark " + DocPages.xpath(root, "/project/properties/spark4.version"));
        // ...through the module's connector dependencies, which name the line's modules.
        String dependency = "/project/dependencies/dependency[artifactId='%s']/groupId";
        assertThat(DocPages.xpath(e2e, dependency.formatted("${e2e.flink.connector}")))
                .isEqualTo("io.tablestorecdc");
        assertThat(DocPages.xpath(e2e, dependency.formatted("${e2e.spark.connector}")))
                .isEqualTo("io.tablestorecdc");

        // Each line's shims: the same classes under the same names, as the page says.
        assertThat(DocPages.xpath(e2e, "/project/properties/e2e.shim.dir"))
                .isEqualTo("src/shim-default/java");
        assertThat(DocPages.xpath(e2e, next + "e2e.shim.dir")).isEqualTo("src/shim-next/java");
        assertThat(page).contains("`e2e/src/shim-default/java`", "`e2e/src/shim-next/java`");
        assertThat(shimFiles("src/shim-next/java"))
                .isNotEmpty()
                .isEqualTo(shimFiles("src/shim-default/java"));
    }

    @Test
    void everyFlagOfTheTableIsADemoFlag() throws Exception {
        String page = DocPages.read(PAGE);
        String table =
                page.substring(page.indexOf("## Flags"), page.indexOf("## Against a standalone"));
        List<String> flags = new ArrayList<>();
        Matcher flag = Pattern.compile("(?m)^\\| `([^`]+)`").matcher(table);
        while (flag.find()) {
            flags.add(flag.group(1));
        }
        assertThat(flags).hasSize(12).contains("--help");

        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        assertThat(
                        Demo.run(
                                new String[] {"--help"},
                                new PrintStream(buffer, true, StandardCharsets.UTF_8)))
                .isZero();
        String help = buffer.toString(StandardCharsets.UTF_8);
        assertThat(help).isEqualTo(DemoSettings.USAGE + "\n");
        for (String row : flags) {
            for (String name : row.split(" ")) {
                if (name.startsWith("--") && !name.equals("--help")) {
                    assertThat(help).as("--help names %s", name).contains(name + " ");
                }
            }
        }
        // Each flag with a value of the form its row shows parses (the defaults are checked by
        // DemoSettingsTest).
        DemoSettings all =
                DemoSettings.parse(
                        "--engine",
                        "both",
                        "--rows",
                        "5",
                        "--duration",
                        "500ms",
                        "--rate",
                        "7",
                        "--seed",
                        "3",
                        "--table",
                        "t",
                        "--tables",
                        "2",
                        "--catch-up-timeout",
                        "2m",
                        "--reshard-every",
                        "40s",
                        "--watch-every",
                        "20s",
                        "--endpoint",
                        "http://127.0.0.1:1",
                        "--instance",
                        "i",
                        "--access-key-id",
                        "a",
                        "--access-key-secret",
                        "s");
        assertThat(all.reshardEvery()).contains(Duration.ofSeconds(40));
        assertThat(all.sourceTables()).containsExactly("t_1", "t_2");
        assertThat(all.watchEvery()).contains(Duration.ofSeconds(20));
        assertThat(all.target()).isPresent();
    }

    @Test
    void theDemoRunsAgainstAStandaloneEmulatorAsWritten() throws Exception {
        String page = DocPages.read(PAGE);
        List<String> lines =
                DocPages.block(page, "## Against a standalone emulator", "```\n")
                        .replace("\\\n", "\u0000")
                        .lines()
                        .map(l -> l.replace("\u0000", "\\\n"))
                        .toList();
        assertThat(lines).hasSize(3);

        // 1. mvn -B -q -pl tablestore-emulator package -DskipTests: the build made the jar
        //    (this module's tests run after the emulator module's package phase).
        assertThat(DocPages.invocations("mvn", lines.get(0), dir))
                .containsExactly(
                        List.of(
                                "-B",
                                "-q",
                                "-pl",
                                "tablestore-emulator",
                                "package",
                                "-DskipTests"));
        Path checkout = DocPages.checkoutWithTheJar(dir);

        // 2. java -jar ... --port 8090 &: on a free port, as a process of this test.
        String start = lines.get(1);
        assertThat(start).isEqualTo("java -jar " + DocPages.JAR_AS_DOCUMENTED + " --port 8090 &");
        Path log = dir.resolve("emulator.out");
        Process emulator =
                new ProcessBuilder(
                                "bash", "-c", "exec " + start.replace("--port 8090 &", "--port 0"))
                        .directory(checkout.toFile())
                        .redirectOutput(log.toFile())
                        .redirectError(dir.resolve("emulator.err").toFile())
                        .start();
        try {
            String ready = firstLine(emulator, log);
            assertThat(ready)
                    .as(
                            "the ready line; stderr:\n%s",
                            Files.readString(dir.resolve("emulator.err")))
                    .matches(
                            "tablestore-emulator ready endpoint=http://127\\.0\\.0\\.1:[0-9]+"
                                    + " instance=emulator");
            String port = ready.replaceAll(".*127\\.0\\.0\\.1:([0-9]+) .*", "$1");

            // 3. The demo with the page's -Ddemo.args, pointed at that port.
            List<List<String>> demo =
                    DocPages.invocations("mvn", lines.get(2).replace("8090", port), dir);
            assertThat(demo).hasSize(1);
            assertThat(demo.get(0)).startsWith("-B", "-q", "-Pdemo", "package", "-DskipTests");
            List<String> args = new ArrayList<>(DocPages.property(demo.get(0), "demo.args"));
            assertThat(args)
                    .containsExactly(
                            "--endpoint",
                            "http://127.0.0.1:" + port,
                            "--instance",
                            "emulator",
                            "--access-key-id",
                            "emulator-id",
                            "--access-key-secret",
                            "emulator-secret");
            args.addAll(SHORT_RUN);
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            int status =
                    Demo.run(
                            args.toArray(String[]::new),
                            new PrintStream(buffer, true, StandardCharsets.UTF_8));
            String output = buffer.toString(StandardCharsets.UTF_8);
            System.out.println(output);
            assertThat(status).as(output).isZero();
            assertThat(output)
                    .contains("demo   it is a tablestore-emulator: will reshard")
                    .contains("demo   split the partition holding order-0000050 into")
                    .contains("demo   merged the two partitions around order-0000050")
                    .containsPattern("flink +orders_flink_replica: MATCH")
                    .contains("result MATCH");

            // Between runs: the page's scan line, as written but for the port.
            Matcher scan = Pattern.compile("`(java -jar \\S+ scan [^`]+)`").matcher(page);
            assertThat(scan.find()).as("the page's scan command").isTrue();
            List<String> rows = bash(scan.group(1).replace("8090", port), checkout);
            assertThat(rows)
                    .hasSize(5)
                    .allMatch(r -> r.startsWith("{\"order_id\":\"order-"), "an order row");
        } finally {
            emulator.destroy();
            emulator.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The profile {@code demo} binds the execution {@code demo} to package; it starts Demo. */
    private static void assertTheDemoProfileRunsTheDemoAtPackage() throws Exception {
        Document pom = pom();
        assertThat(
                        DocPages.xpath(
                                pom,
                                "/project/profiles/profile[id='demo']/build/plugins"
                                        + "/plugin[artifactId='exec-maven-plugin']/executions/execution[id='demo']/phase"))
                .isEqualTo("package");
        String commandline =
                DocPages.xpath(
                        pom,
                        "/project/build/plugins/plugin[artifactId='exec-maven-plugin']"
                                + "/executions/execution[id='demo']/configuration/commandlineArgs");
        Matcher main =
                Pattern.compile("-cp %classpath (\\S+) \\$\\{demo\\.args\\}$")
                        .matcher(commandline.strip());
        assertThat(main.find()).as(commandline).isTrue();
        assertThat(main.group(1)).isEqualTo(Demo.class.getName());
        Method entry = Demo.class.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(entry.getModifiers())).isTrue();
    }

    /** The files under the e2e module's {@code shimDir}, relative to it. */
    private static List<String> shimFiles(String shimDir) throws Exception {
        Path root = DocPages.REPO.resolve("e2e").resolve(shimDir);
        try (var files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .map(f -> root.relativize(f).toString())
                    .sorted()
                    .toList();
        }
    }

    private static Document pom() throws Exception {
        return DocPages.pom("e2e/pom.xml");
    }

    /** Runs {@code command} with bash in {@code dir}; its stdout lines (it must exit 0). */
    private List<String> bash(String command, Path in) throws Exception {
        Path out = dir.resolve("bash.out");
        Process bash =
                new ProcessBuilder("bash", "-e", "-c", command)
                        .directory(in.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        assertThat(bash.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        assertThat(bash.exitValue()).as("exit code of %s", command).isZero();
        return Files.readAllLines(out);
    }

    /** The first line {@code process} wrote to {@code file}, once complete. */
    private static String firstLine(Process process, Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            if (text.contains("\n")) {
                return text.substring(0, text.indexOf('\n'));
            }
            assertThat(process.isAlive()).as("the emulator runs").isTrue();
            Thread.sleep(20);
        }
        throw new AssertionError("no ready line within 60 s");
    }

    private static String majorMinor(Document root, String property) throws Exception {
        String version = DocPages.xpath(root, "/project/properties/" + property);
        return version.substring(0, version.indexOf('.', version.indexOf('.') + 1));
    }
}
