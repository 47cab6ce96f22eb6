package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.e2e.docs.DocPages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The results tables of docs/benchmarks.md are the benchmark's own rendering ({@link ResultTables})
 * of the runs published in docs/img as {@code results-<part>-<n>.json}; every published run is one
 * of paired rounds with the emulator in its own JVM, and every file of docs/img is one the page
 * reads. Publish a run: copy its {@code throughput.json} to docs/img under the next number, then
 * run this test with {@code -Ddocs.write=true}.
 */
class BenchmarkResultsDocTest {

    private static final Path PAGE = GeneratedDocs.page("benchmarks.md");
    private static final Path IMG = DocPages.REPO.resolve("docs/img");

    @Test
    void theThroughputTableIsRenderedFromThePublishedRuns() throws IOException {
        check("throughput", "benchmark-throughput");
    }

    @Test
    void theManyTablesTablesAreRenderedFromThePublishedRuns() throws IOException {
        check("tables", "benchmark-tables");
    }

    @Test
    void everyFileOfTheImageFolderIsOneThePageReads() throws IOException {
        List<String> unread = new ArrayList<>();
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.list(IMG)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                boolean published = name.matches("results-(throughput|tables)-\\d+\\.json");
                if (!published && !page.contains("img/" + name)) {
                    unread.add(name);
                }
            }
        }
        assertThat(unread).as("files of docs/img the benchmark page does not read").isEmpty();
    }

    private static void check(String part, String section) throws IOException {
        List<JsonObject> runs = published(part);
        assertThat(runs).as("published runs of part %s in %s", part, IMG).isNotEmpty();
        int rounds = 0;
        for (JsonObject run : runs) {
            assertThat(run.get("emulator").getAsString())
                    .as("a published run's emulator")
                    .isEqualTo("process");
            assertThat(ResultTables.sections(run)).contains(section);
            rounds += run.has("runs") ? run.get("runs").getAsInt() : 1;
        }
        assertThat(rounds).as("paired rounds of part %s", part).isGreaterThanOrEqualTo(5);
        GeneratedDocs.check(PAGE, section, ResultTables.render(section, runs));
    }

    /** The part's published runs, in the order of their numbers. */
    private static List<JsonObject> published(String part) throws IOException {
        List<JsonObject> runs = new ArrayList<>();
        for (int n = 1; Files.exists(IMG.resolve(name(part, n))); n++) {
            runs.add(ResultTables.parse(Files.readString(IMG.resolve(name(part, n)))));
        }
        return runs;
    }

    private static String name(String part, int n) {
        return "results-" + part + "-" + n + ".json";
    }
}
