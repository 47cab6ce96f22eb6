package io.tablestorecdc.flink.source.deserializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.List;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The change-record readers convert cells exactly as {@link CellTypes#MAPPINGS} says. */
class CellTypeConformanceTest {

    private static final ChangeRecord RECORD =
            new ChangeRecord(
                    ChangeRecord.Action.PUT,
                    List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(7))),
                    List.of(),
                    SequenceInfo.NONE,
                    "ch");

    @Test
    void theDeserializerTakesWhatTheMappingSaysAndRefusesTheRest() {
        for (LogicalType type : CellTypeCases.columnTypes()) {
            if (CellTypes.of(type).isEmpty()) {
                continue; // refused when the deserializer is built: see below
            }
            RowType.RowField field = new RowType.RowField("c", type);
            for (CellValue cell : CellTypeCases.cells()) {
                boolean taken;
                try {
                    taken = RowDataChangeRecordDeserializer.convert(field, cell, RECORD) != null;
                } catch (InvalidChangeRecordException e) {
                    taken = false;
                }
                assertThat(taken)
                        .as("%s cell %s into %s", cell.type(), cell, type)
                        .isEqualTo(CellTypeCases.accepted(type, cell));
            }
        }
    }

    @Test
    void theDirectWriterTakesWhatTheMappingSaysAndRefusesTheRest() {
        for (LogicalType type : CellTypeCases.columnTypes()) {
            if (CellTypes.of(type).isEmpty()) {
                continue;
            }
            for (CellValue cell : CellTypeCases.cells()) {
                assertThat(RowDataChangeWriter.convert(type.getTypeRoot(), cell) != null)
                        .as("%s cell %s into %s", cell.type(), cell, type)
                        .isEqualTo(CellTypeCases.accepted(type, cell));
            }
        }
    }

    @Test
    void aTypeOutsideTheMappingIsRefusedNamingTheTypesToUse() {
        for (LogicalType type : CellTypeCases.columnTypes()) {
            RowType.RowField field = new RowType.RowField("c", type);
            if (CellTypes.of(type).isPresent()) {
                CellTypes.requireSupported(field);
                continue;
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> CellTypes.requireSupported(field))
                    .hasMessageContaining("Field 'c' has type " + type)
                    .hasMessageContaining("use STRING, VARCHAR(n), CHAR(n), BIGINT");
        }
    }
}
