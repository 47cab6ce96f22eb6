package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.model.CellValue;
import org.junit.jupiter.api.Test;

class TableCellsTest {

    @Test
    void keyValuesBecomeCellsOfTheirType() {
        assertThat(TableCells.of(PrimaryKeyValue.fromString("é")))
                .isEqualTo(CellValue.ofString("é"));
        assertThat(TableCells.of(PrimaryKeyValue.fromLong(7))).isEqualTo(CellValue.ofInteger(7));
        assertThat(TableCells.of(PrimaryKeyValue.fromBinary(new byte[] {1, 2})))
                .isEqualTo(CellValue.ofBinary(new byte[] {1, 2}));
        assertThatThrownBy(() -> TableCells.of(PrimaryKeyValue.INF_MAX))
                .hasMessageContaining("range marker");
    }

    @Test
    void attributeValuesOfTheFiveTypesBecomeCells() {
        assertThat(TableCells.of("a", ColumnValue.fromString("x")))
                .isEqualTo(CellValue.ofString("x"));
        assertThat(TableCells.of("a", ColumnValue.fromLong(-1))).isEqualTo(CellValue.ofInteger(-1));
        assertThat(TableCells.of("a", ColumnValue.fromDouble(1.5)))
                .isEqualTo(CellValue.ofDouble(1.5));
        assertThat(TableCells.of("a", ColumnValue.fromBoolean(true)))
                .isEqualTo(CellValue.ofBoolean(true));
        assertThat(TableCells.of("a", ColumnValue.fromBinary(new byte[] {9})))
                .isEqualTo(CellValue.ofBinary(new byte[] {9}));
    }
}
