package io.tablestorecdc.flink.source.deserializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

class CellTypesTest {

    @Test
    void everyTypeACellHoldsMapsToItsCellType() {
        assertThat(CellTypes.of(type(DataTypes.STRING()))).contains(CellValue.Type.STRING);
        assertThat(CellTypes.of(type(DataTypes.CHAR(3)))).contains(CellValue.Type.STRING);
        assertThat(CellTypes.of(type(DataTypes.BIGINT()))).contains(CellValue.Type.INTEGER);
        assertThat(CellTypes.of(type(DataTypes.TINYINT()))).contains(CellValue.Type.INTEGER);
        assertThat(CellTypes.of(type(DataTypes.FLOAT()))).contains(CellValue.Type.DOUBLE);
        assertThat(CellTypes.of(type(DataTypes.BOOLEAN()))).contains(CellValue.Type.BOOLEAN);
        assertThat(CellTypes.of(type(DataTypes.BYTES()))).contains(CellValue.Type.BINARY);
        assertThat(CellTypes.of(type(DataTypes.TIMESTAMP(3)))).isEmpty();
        assertThat(CellTypes.of(type(DataTypes.DECIMAL(10, 2)))).isEmpty();
    }

    @Test
    void aTypeNoCellHoldsIsRefusedNamingTheFieldAndTheTypesToUse() {
        RowType.RowField field = new RowType.RowField("created", type(DataTypes.TIMESTAMP(3)));

        assertThatThrownBy(() -> CellTypes.requireSupported(field))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'created'")
                .hasMessageContaining("TIMESTAMP(3)")
                .hasMessageContaining("use STRING, VARCHAR(n), CHAR(n), BIGINT");
    }

    private static LogicalType type(org.apache.flink.table.types.DataType dataType) {
        return dataType.getLogicalType();
    }
}
