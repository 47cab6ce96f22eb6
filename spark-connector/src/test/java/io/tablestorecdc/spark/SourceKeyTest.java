package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class SourceKeyTest {

    private static final PrimaryKeyColumn ID = new PrimaryKeyColumn("id", CellValue.Type.STRING);
    private static final PrimaryKeyColumn N = new PrimaryKeyColumn("n", CellValue.Type.INTEGER);
    private static final PrimaryKeyColumn ZONE =
            new PrimaryKeyColumn("zone", CellValue.Type.BINARY);

    @Test
    void theUnionHoldsEachColumnOnceInTheOrderTheTablesNameThemAndMarksThoseATableLacks() {
        Map<String, List<PrimaryKeyColumn>> keys = new LinkedHashMap<>();
        keys.put("orders", List.of(ID, N));
        keys.put("zones", List.of(N, ZONE));
        keys.put("more", List.of(N, ID));

        SourceKey union = SourceKey.union(keys);

        assertThat(union.columns()).containsExactly(ID, N, ZONE);
        assertThat(union.optional()).containsExactlyInAnyOrder("id", "zone");
        assertThat(union.shared()).isFalse();
        assertThat(SourceKey.union(Map.of("a", List.of(ID, N), "b", List.of(N, ID))).shared())
                .as("the same columns in another order")
                .isTrue();
    }

    @Test
    void oneNameOfTwoTypesIsRefusedNamingBothTables() {
        Map<String, List<PrimaryKeyColumn>> keys = new LinkedHashMap<>();
        keys.put("orders", List.of(ID));
        keys.put("odd", List.of(new PrimaryKeyColumn("id", CellValue.Type.INTEGER)));

        assertThatThrownBy(() -> SourceKey.union(keys))
                .hasMessageContaining("Primary-key column 'id' is INTEGER in table 'odd'")
                .hasMessageContaining("but STRING in table 'orders'")
                .hasMessageContaining("table.exclude");
    }

    @Test
    void aTableFitsWhenItHasEveryColumnNoTableLacksAndNoneOfItsOwn() {
        SourceKey union =
                SourceKey.union(Map.of("orders", List.of(ID, N), "zones", List.of(N, ZONE)));

        assertThat(union.fits(List.of(N))).isTrue();
        assertThat(union.fits(List.of(N, ID, ZONE))).isTrue();
        assertThat(union.fits(List.of(ID))).as("lacks n, which every table has").isFalse();
        assertThat(union.fits(List.of(N, new PrimaryKeyColumn("x", CellValue.Type.STRING))))
                .as("a column the rows do not carry")
                .isFalse();
        assertThat(SourceKey.of(List.of(ID, N)).fits(List.of(N, ID))).isTrue();
    }

    @Test
    void declaredAttributeColumnsNeedOneSharedKey() {
        SourceKey union =
                SourceKey.union(Map.of("orders", List.of(ID, N), "zones", List.of(N, ZONE)));

        assertThatThrownBy(
                        () ->
                                OutputSchema.of(
                                        union, new StructType().add("qty", DataTypes.LongType)))
                .hasMessageContaining("the tables' primary keys differ")
                .hasMessageContaining("declare _values instead of attribute columns");
        StructType inferred = OutputSchema.inferred(union, false).sparkSchema();
        assertThat(OutputSchema.of(union, inferred).sparkSchema())
                .as("the inferred schema given back")
                .isEqualTo(inferred);
    }
}
