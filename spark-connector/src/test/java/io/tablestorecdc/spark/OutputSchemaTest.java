package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class OutputSchemaTest {

    static final List<PrimaryKeyColumn> PK =
            List.of(
                    new PrimaryKeyColumn("id", CellValue.Type.STRING),
                    new PrimaryKeyColumn("n", CellValue.Type.INTEGER));

    @Test
    void withoutUserSchemaAllAttributesGoIntoOneMap() {
        StructType schema = OutputSchema.inferred(PK).sparkSchema();

        assertThat(schema.fieldNames())
                .containsExactly(
                        "id",
                        "n",
                        "_values",
                        "_table",
                        "_op",
                        "_commit_ts",
                        "_channel",
                        "_seq",
                        "_column_ops");
        assertThat(schema.apply("id").dataType()).isEqualTo(DataTypes.StringType);
        assertThat(schema.apply("n").dataType()).isEqualTo(DataTypes.LongType);
        assertThat(schema.apply("_values").dataType().simpleString())
                .isEqualTo("map<string,string>");
        assertThat(schema.apply("_commit_ts").dataType()).isEqualTo(DataTypes.TimestampType);
        assertThat(schema.apply("_seq").dataType().simpleString())
                .isEqualTo("struct<epoch:int,timestamp:bigint,row_index:int>");
    }

    @Test
    void userSchemaDeclaresAttributeColumnsInItsOrder() {
        StructType given =
                new StructType()
                        .add("price", DataTypes.DoubleType)
                        .add("qty", DataTypes.IntegerType);

        OutputSchema out = OutputSchema.of(PK, given);

        assertThat(out.valuesMap()).isFalse();
        assertThat(out.sparkSchema().fieldNames())
                .containsExactly(
                        "id",
                        "n",
                        "price",
                        "qty",
                        "_table",
                        "_op",
                        "_commit_ts",
                        "_channel",
                        "_seq",
                        "_column_ops");
    }

    @Test
    void theInferredSchemaGivenBackKeepsTheMapLayout() {
        StructType inferred = OutputSchema.inferred(PK).sparkSchema();

        OutputSchema out = OutputSchema.of(PK, inferred);

        assertThat(out.valuesMap()).isTrue();
        assertThat(out.sparkSchema()).isEqualTo(inferred);
    }

    @Test
    void primaryKeyAndMetadataColumnsMayBeRepeatedWithTheirTypes() {
        StructType given =
                new StructType()
                        .add("id", DataTypes.StringType)
                        .add("_op", DataTypes.StringType)
                        .add("price", DataTypes.DoubleType);

        assertThat(OutputSchema.of(PK, given).attributes()).hasSize(1);
    }

    @Test
    void wrongTypesAndUnsupportedTypesAreNamed() {
        StructType given =
                new StructType()
                        .add("n", DataTypes.StringType)
                        .add("_commit_ts", DataTypes.LongType)
                        .add("when", DataTypes.DateType);

        assertThatThrownBy(() -> OutputSchema.of(PK, given))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "column 'n' is string but this source always produces it as bigint")
                .hasMessageContaining("column '_commit_ts' is bigint")
                .hasMessageContaining("column 'when' has type date")
                .hasMessageContaining("use one of [string, bigint, int");
    }

    @Test
    void mapAndAttributeColumnsTogetherAreRejected() {
        StructType given =
                new StructType()
                        .add("_values", OutputSchema.STRING_MAP)
                        .add("price", DataTypes.DoubleType);

        assertThatThrownBy(() -> OutputSchema.of(PK, given))
                .hasMessageContaining("declare either attribute columns or _values, not both");
    }

    @Test
    void duplicateColumnsAreRejected() {
        StructType given =
                new StructType().add("a", DataTypes.LongType).add("a", DataTypes.LongType);

        assertThatThrownBy(() -> OutputSchema.of(PK, given))
                .hasMessageContaining("column 'a' is declared twice");
    }
}
