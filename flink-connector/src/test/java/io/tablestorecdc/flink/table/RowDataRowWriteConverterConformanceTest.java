package io.tablestorecdc.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.flink.source.deserializer.CellTypeCases;
import io.tablestorecdc.flink.source.deserializer.CellTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The sink writes each column as the cell type {@link CellTypes#MAPPINGS} names. */
class RowDataRowWriteConverterConformanceTest {

    @Test
    void eachColumnIsWrittenAsTheMappingsCellType() {
        for (LogicalType type : CellTypeCases.columnTypes()) {
            if (CellTypes.of(type).isEmpty()) {
                assertThat(RowDataRowWriteConverter.cellType(type)).as("%s", type).isEmpty();
                continue;
            }
            RowType rowType =
                    RowType.of(
                            new LogicalType[] {new BigIntType(), type}, new String[] {"id", "c"});
            RowDataRowWriteConverter converter =
                    new RowDataRowWriteConverter(rowType, new int[] {0}, WriteMode.PUT);
            RowWrite write = converter.convert(GenericRowData.of(7L, sample(type))).orElseThrow();
            CellValue written = write.puts().get("c");
            assertThat(written.type())
                    .as("%s", type)
                    .isEqualTo(CellTypes.mapping(type.getTypeRoot()).orElseThrow().writes());
        }
    }

    private static Object sample(LogicalType type) {
        return switch (type.getTypeRoot()) {
            case CHAR, VARCHAR -> StringData.fromString("ab");
            case BIGINT -> 5L;
            case INTEGER -> 5;
            case SMALLINT -> (short) 5;
            case TINYINT -> (byte) 5;
            case DOUBLE -> 1.5;
            case FLOAT -> 1.5f;
            case BOOLEAN -> true;
            case BINARY, VARBINARY -> new byte[] {1, 2};
            default -> throw new IllegalStateException("no sample for " + type);
        };
    }
}
