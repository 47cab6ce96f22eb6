package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/** The options table of docs/pipeline.md is generated from the option declarations. */
class PipelineDocsTest {

    /** What the pipeline source does beyond the shared description. */
    private static final Map<String, String> PIPELINE_REMARKS =
            Map.of(
                    "instance.name",
                    "Also the schema name of every table id.",
                    "credentials.provider",
                    "As in [flink.md](flink.md#credentials).");

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("pipeline.md"),
                "pipeline-source-options",
                OptionTable.markdown(
                        PipelineOptions.declared(),
                        spec -> PIPELINE_REMARKS.getOrDefault(spec.key(), "")));
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
