package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SampledColumnsTest {

    private static Row row(Column... columns) {
        return new Row(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("k"))
                        .build(),
                List.of(columns));
    }

    private static Column c(String name, ColumnValue value) {
        return new Column(name, value);
    }

    @Test
    void eachColumnTakesTheTypeOfItsValuesAndIntegerWithDoubleIsDouble() {
        SampledColumns sample = new SampledColumns();
        sample.add(row(c("s", ColumnValue.fromString("x")), c("n", ColumnValue.fromLong(1))));
        sample.add(row(c("n", ColumnValue.fromDouble(1.5)), c("b", ColumnValue.fromBoolean(true))));
        sample.add(row(c("bin", ColumnValue.fromBinary(new byte[] {1}))));

        assertThat(sample.rows()).isEqualTo(3);
        assertThat(sample.types())
                .containsExactly(
                        Map.entry("b", CellValue.Type.BOOLEAN),
                        Map.entry("bin", CellValue.Type.BINARY),
                        Map.entry("n", CellValue.Type.DOUBLE),
                        Map.entry("s", CellValue.Type.STRING));
    }

    @Test
    void aColumnOfTwoUnrelatedTypesIsNamedWithTheFix() {
        SampledColumns sample = new SampledColumns();
        sample.add(row(c("v", ColumnValue.fromString("x")), c("w", ColumnValue.fromLong(1))));
        sample.add(row(c("v", ColumnValue.fromLong(2)), c("w", ColumnValue.fromLong(3))));

        assertThatThrownBy(sample::types)
                .hasMessageContaining("v holds [STRING, INTEGER]")
                .hasMessageContaining("declare the columns with a schema")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("w holds"));
    }

    @Test
    void anEmptySampleKnowsNoColumns() {
        assertThat(new SampledColumns().types()).isEmpty();
    }
}
