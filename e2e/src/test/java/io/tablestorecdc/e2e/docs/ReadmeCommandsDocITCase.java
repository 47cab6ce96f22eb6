package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The README's commands are the ones the build and CI define. Its demo command is the one of
 * docs/getting-started.md ({@link GettingStartedDocITCase} checks it); its test command is what
 * {@code .ci/run} runs, and the profile of the heavy variants sets the counts the README names.
 * Neither is run here: each is this whole build.
 */
class ReadmeCommandsDocITCase {

    @TempDir Path dir;

    @Test
    void theTestCommandIsWhatCiRuns() throws Exception {
        String readme = DocPages.read("README.md");
        String test = DocPages.block(readme, "Run all tests", "```\n");
        assertThat(DocPages.invocations("mvn", test, dir)).containsExactly(List.of("-B", "verify"));

        List<String> ci = DocPages.read(".ci/run").strip().lines().toList();
        assertThat(ci.get(ci.size() - 1)).isEqualTo("exec " + test.strip());
    }

    @Test
    void theLongProfileRunsTheHeavyVariantsTheReadmeNames() throws Exception {
        String readme = DocPages.read("README.md").replaceAll("\\s+", " ");
        assertThat(readme)
                .contains(
                        "The heavy variants (crash loops with 30 and 15 kills, the demo for 10"
                                + " minutes with a split or merge every minute) run with `mvn -B"
                                + " -Plong verify`");
        Document pom = DocPages.pom("e2e/pom.xml");
        String properties =
                "/project/profiles/profile[id='long']/build/plugins"
                        + "/plugin[artifactId='maven-surefire-plugin']/configuration"
                        + "/systemPropertyVariables/";
        assertThat(DocPages.xpath(pom, properties + "crash.spark.kills")).isEqualTo("30");
        assertThat(DocPages.xpath(pom, properties + "crash.flink.kills")).isEqualTo("15");
        assertThat(DocPages.xpath(pom, properties + "tsc.soak.duration")).isEqualTo("10m");
    }

    @Test
    void theBenchmarkCommandIsTheBenchmarkPagesCommand() throws Exception {
        String readme = DocPages.read("README.md");
        String page = DocPages.read("docs/benchmarks.md");
        String command = "mvn -B -q install -DskipTests && mvn -B -q -pl e2e exec:exec@bench";
        assertThat(readme).contains("Benchmarks (a program, not a test): `" + command + "`");
        assertThat(DocPages.block(page, "## Running it", "```sh\n")).isEqualTo(command + "\n");
    }
}
