package io.tablestorecdc.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class TableReadSchemaTest {

    private static final List<PrimaryKeyColumn> KEY =
            List.of(
                    new PrimaryKeyColumn("id", CellValue.Type.STRING),
                    new PrimaryKeyColumn("n", CellValue.Type.INTEGER));

    @Test
    void theInferredSchemaIsTheKeyThenTheValuesMap() {
        StructType inferred = TableReadSchema.inferred(KEY);

        assertThat(inferred.simpleString())
                .isEqualTo("struct<id:string,n:bigint,_values:map<string,string>>");
        assertThatCode(() -> TableReadSchema.check(KEY, inferred, "t")).doesNotThrowAnyException();
    }

    @Test
    void aUserSchemaMayOrderColumnsFreelyAndUseEveryAttributeType() {
        StructType given =
                new StructType()
                        .add("qty", DataTypes.IntegerType)
                        .add("n", DataTypes.LongType)
                        .add("ok", DataTypes.BooleanType)
                        .add("id", DataTypes.StringType)
                        .add("blob", DataTypes.BinaryType);

        assertThatCode(() -> TableReadSchema.check(KEY, given, "t")).doesNotThrowAnyException();
    }

    @Test
    void everyProblemIsNamedWithItsFixAtOnce() {
        StructType given =
                new StructType()
                        .add("n", DataTypes.IntegerType)
                        .add("day", DataTypes.DateType)
                        .add("a", DataTypes.StringType)
                        .add("a", DataTypes.LongType)
                        .add("_values", DataTypes.StringType);

        assertThatThrownBy(() -> TableReadSchema.check(KEY, given, "t"))
                .hasMessageContaining("does not fit table 't' (primary key (id STRING, n INTEGER))")
                .hasMessageContaining("column 'n' is int, but it is a primary-key column")
                .hasMessageContaining("declare it as bigint")
                .hasMessageContaining("column 'day' has type date")
                .hasMessageContaining("column 'a' is declared twice")
                .hasMessageContaining("column '_values' is string")
                .hasMessageContaining("the primary-key column 'id' is missing")
                .hasMessageContaining("add it to the schema as id STRING")
                .hasMessageContaining("declare either attribute columns or _values");
    }
}
