package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import io.tablestorecdc.flink.source.config.TablestoreCdcOptions;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/**
 * The options of docs/pipeline.md are generated from the option declarations: a table of the
 * pipeline source's own options, and the list of the Flink source's options it takes as they are,
 * which the page describes by a link to docs/flink.md.
 */
class PipelineDocsTest {

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("pipeline.md"),
                "pipeline-source-options",
                OptionTable.markdown(
                        PipelineOptions.declared().stream()
                                .filter(spec -> !isFlinkSourceOption(spec))
                                .toList(),
                        spec -> ""));
    }

    @Test
    void theFlinkSourceOptionsItTakesAreListed() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("pipeline.md"),
                "pipeline-shared-options",
                PipelineOptions.declared().stream()
                                .filter(PipelineDocsTest::isFlinkSourceOption)
                                .map(spec -> "`" + spec.key() + "`")
                                .collect(Collectors.joining(", "))
                        + "\n");
    }

    /** An option the Flink source takes under the same key, described in docs/flink.md. */
    private static boolean isFlinkSourceOption(OptionSpec spec) {
        return Stream.concat(
                        Arrays.stream(SourceOption.values()).map(SourceOption::spec),
                        TablestoreCdcOptions.FLINK_ONLY.stream())
                .anyMatch(flink -> flink.key().equals(spec.key()));
    }

    @Test
    void theTypeTableIsGeneratedFromTheMapping() throws Exception {
        StringBuilder table =
                new StringBuilder(
                        "| Tablestore | Flink CDC | declared in `schema.columns.<table>` as |\n"
                                + "|---|---|---|\n");
        for (ColumnTypes.Mapping m : ColumnTypes.MAPPINGS) {
            table.append("| ")
                    .append(m.cell())
                    .append(" | ")
                    .append(m.type().asSummaryString())
                    .append(" | ")
                    .append(
                            m.declared().stream()
                                    .map(n -> "`" + n + "`")
                                    .collect(java.util.stream.Collectors.joining(", ")))
                    .append(" |\n");
        }
        GeneratedDocs.check(GeneratedDocs.page("pipeline.md"), "pipeline-types", table.toString());
    }

    @Test
    void theFactoryTakesExactlyTheDeclaredOptions() {
        TablestoreDataSourceFactory factory = new TablestoreDataSourceFactory();
        Set<String> taken = new TreeSet<>();
        factory.requiredOptions().stream().map(ConfigOption::key).forEach(taken::add);
        factory.optionalOptions().stream().map(ConfigOption::key).forEach(taken::add);
        taken.add(PipelineOptions.SCHEMA_COLUMNS_PREFIX + "<table>");

        Set<String> declared = new TreeSet<>();
        PipelineOptions.declared().stream().map(OptionSpec::key).forEach(declared::add);
        assertThat(taken).isEqualTo(declared);
    }
}
