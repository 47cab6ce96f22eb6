package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The data-type table of docs/flink.md is generated from {@link CellTypes#MAPPINGS}. */
class FlinkTypeDocsTest {

    @Test
    void theTypeTableIsGeneratedFromTheMapping() throws Exception {
        GeneratedDocs.check(GeneratedDocs.page("flink.md"), "flink-types", table());
    }

    static String table() {
        StringBuilder table =
                new StringBuilder(
                        "| Flink SQL type | Tablestore cells read into it | Written as | Primary"
                                + " key | Note |\n|---|---|---|---|---|\n");
        for (CellTypes.Mapping mapping : CellTypes.MAPPINGS) {
            table.append("| ")
                    .append(mapping.sqlTypes())
                    .append(" | ")
                    .append(
                            mapping.reads().entrySet().stream()
                                    .map(
                                            e ->
                                                    e.getKey()
                                                            + (e.getValue()
                                                                            == CellTypes.Accepts
                                                                                    .IN_RANGE
                                                                    ? " in the type's range"
                                                                    : ""))
                                    .collect(Collectors.joining(", ")))
                    .append(" | ")
                    .append(mapping.writes())
                    .append(" | ")
                    .append(mapping.key() ? "yes" : "no")
                    .append(" | ")
                    .append(mapping.note())
                    .append(" |\n");
        }
        return table.toString();
    }
}
