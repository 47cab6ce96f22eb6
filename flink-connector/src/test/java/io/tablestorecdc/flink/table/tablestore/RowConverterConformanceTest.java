package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.flink.source.deserializer.CellTypeCases;
import io.tablestorecdc.flink.source.deserializer.CellTypes;
import java.util.List;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The bounded scan and the lookups convert values exactly as {@link CellTypes#MAPPINGS} says. */
class RowConverterConformanceTest {

    private static final Row ROW =
            new Row(
                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                            .addPrimaryKeyColumn("id", PrimaryKeyValue.fromLong(7))
                            .build(),
                    List.of());

    @Test
    void aValueIsTakenExactlyWhenTheMappingSays() {
        for (LogicalType type : CellTypeCases.columnTypes()) {
            if (CellTypes.of(type).isEmpty()) {
                continue;
            }
            RowType.RowField field = new RowType.RowField("c", type);
            for (CellValue cell : CellTypeCases.cells()) {
                boolean taken;
                try {
                    taken = RowConverter.convert(field, cell.toJava(), ROW) != null;
                } catch (IllegalArgumentException e) {
                    taken = false;
                }
                assertThat(taken)
                        .as("%s value %s into %s", cell.type(), cell, type)
                        .isEqualTo(CellTypeCases.accepted(type, cell));
            }
        }
    }
}
