package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.docs.DocPages;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The commands of docs/benchmarks.md start the benchmark with the arguments the page shows. They
 * are not run here (the benchmark takes minutes, and its first command is a whole build): bash
 * parses each as written (a recording {@code mvn} function takes its arguments), the execution they
 * name starts {@link ThroughputBenchmark}, and the short run's {@code -Dbench.args} parse with the
 * benchmark's own parser into the run the page describes.
 */
class BenchmarksDocITCase {

    private static final String PAGE = "docs/benchmarks.md";

    @TempDir Path dir;

    @Test
    void theFullRunNamesTheBenchExecution() throws Exception {
        String block = DocPages.block(DocPages.read(PAGE), "## Running it", "```sh\n");
        assertThat(DocPages.invocations("mvn", block, dir))
                .containsExactly(
                        List.of("-B", "-q", "install", "-DskipTests"),
                        List.of("-B", "-q", "-pl", "e2e", "exec:exec@bench"));

        Document pom = DocPages.pom("e2e/pom.xml");
        String commandline =
                DocPages.xpath(
                        pom,
                        "/project/build/plugins/plugin[artifactId='exec-maven-plugin']"
                                + "/executions/execution[id='bench']/configuration/commandlineArgs");
        Matcher main =
                Pattern.compile("-cp %classpath (\\S+) \\$\\{bench\\.args\\}$")
                        .matcher(commandline.strip());
        assertThat(main.find()).as(commandline).isTrue();
        assertThat(main.group(1)).isEqualTo(ThroughputBenchmark.class.getName());
        assertThat(DocPages.read(PAGE))
                .contains("The program is `" + ThroughputBenchmark.class.getName() + "`");
        assertThat(
                        Modifier.isStatic(
                                ThroughputBenchmark.class
                                        .getMethod("main", String[].class)
                                        .getModifiers()))
                .isTrue();
    }

    @Test
    void theShortRunsArgumentsParse() throws Exception {
        String block = DocPages.block(DocPages.read(PAGE), "A short run", "```sh\n");
        List<List<String>> calls = DocPages.invocations("mvn", block, dir);
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0)).startsWith("-B", "-q", "-pl", "e2e", "exec:exec@bench");

        BenchSettings settings =
                BenchSettings.parse(
                        DocPages.property(calls.get(0), "bench.args").toArray(String[]::new));
        assertThat(settings.parts()).containsExactly("ceilings", "overhead", "memory");
        assertThat(settings.rows()).isEqualTo(20_000);
        assertThat(settings.runs()).isEqualTo(1);
        assertThat(settings.channels()).containsExactly(1, 16);
        assertThat(settings.idleTriggers()).isEqualTo(20);
        assertThat(settings.memoryBacklogs()).containsExactly(100, 400);
    }

    /** The page's settings table lists every key with its default, and every part. */
    @Test
    void theSettingsTableListsEveryKeyWithItsDefault() throws Exception {
        String page = DocPages.read(PAGE);
        String table = page.substring(page.indexOf("| key | default | what |"));
        table = table.substring(0, table.indexOf("\n\n"));
        Map<String, String> documented = new LinkedHashMap<>();
        Pattern code = Pattern.compile("`([^`]*)`");
        for (String row : table.lines().skip(2).toList()) {
            String[] cells = row.split("\\|");
            List<String> keys = code.matcher(cells[1]).results().map(m -> m.group(1)).toList();
            List<String> defaults = code.matcher(cells[2]).results().map(m -> m.group(1)).toList();
            assertThat(defaults).as(row).hasSameSizeAs(keys);
            for (int i = 0; i < keys.size(); i++) {
                documented.put(keys.get(i), defaults.get(i));
            }
        }
        Map<String, String> expected = new LinkedHashMap<>(BenchSettings.DEFAULTS);
        expected.put("parts", "all"); // documented as all, the code spells the parts out
        assertThat(documented).containsExactlyInAnyOrderEntriesOf(expected);
        String partsRow = table.lines().filter(l -> l.startsWith("| `parts` |")).findFirst().get();
        for (String part : BenchSettings.ALL_PARTS) {
            assertThat(partsRow).contains("`" + part + "`");
        }
    }
}
