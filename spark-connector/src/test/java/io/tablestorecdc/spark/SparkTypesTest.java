package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.spark.sink.SparkRowWriteConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * Every Spark converter follows {@link SparkTypes#MAPPINGS}, and the type table of docs/spark.md is
 * generated from it.
 */
class SparkTypesTest {

    private static final List<DataType> TYPES =
            List.of(
                    DataTypes.StringType,
                    DataTypes.LongType,
                    DataTypes.IntegerType,
                    DataTypes.ShortType,
                    DataTypes.ByteType,
                    DataTypes.DoubleType,
                    DataTypes.FloatType,
                    DataTypes.BooleanType,
                    DataTypes.BinaryType,
                    DataTypes.createDecimalType(10, 2),
                    DataTypes.DateType,
                    DataTypes.TimestampType);

    private static final List<CellValue> CELLS =
            List.of(
                    CellValue.ofString("text"),
                    CellValue.ofInteger(5),
                    CellValue.ofInteger(Byte.MAX_VALUE + 1),
                    CellValue.ofInteger(Short.MIN_VALUE - 1),
                    CellValue.ofInteger(Integer.MAX_VALUE + 1L),
                    CellValue.ofInteger((1L << 53) + 1),
                    CellValue.ofInteger(Long.MIN_VALUE),
                    CellValue.ofDouble(1.5),
                    CellValue.ofBoolean(true),
                    CellValue.ofBinary("ab".getBytes(StandardCharsets.UTF_8)));

    @Test
    void readersTakeACellExactlyWhenTheMappingSays() {
        for (DataType type : TYPES) {
            for (CellValue cell : CELLS) {
                assertThat(CellRules.fits(cell, type))
                        .as("%s cell %s into %s", cell.type(), cell, type.simpleString())
                        .isEqualTo(accepted(type, cell));
            }
        }
    }

    @Test
    void theSinkWritesExactlyTheMappedTypes() {
        for (DataType type : TYPES) {
            if (SparkTypes.mapping(type).isPresent()) {
                SparkRowWriteConverter.kind("c", type);
            } else {
                assertThatThrownBy(() -> SparkRowWriteConverter.kind("c", type))
                        .as(type.simpleString())
                        .hasMessageContaining("which Tablestore cannot store");
            }
        }
    }

    @Test
    void aSchemaDeclaresOnlyTypesAReaderTakes() {
        assertThat(OutputSchema.ATTRIBUTE_TYPES)
                .containsExactlyElementsOf(
                        SparkTypes.MAPPINGS.stream()
                                .filter(m -> !m.reads().isEmpty())
                                .map(SparkTypes.Mapping::type)
                                .toList());
        assertThat(SparkTypes.keyFits(CellValue.Type.INTEGER, DataTypes.ShortType)).isTrue();
        assertThat(SparkTypes.keyFits(CellValue.Type.INTEGER, DataTypes.DoubleType)).isFalse();
        assertThat(SparkTypes.keyFits(CellValue.Type.STRING, DataTypes.BinaryType)).isFalse();
    }

    @Test
    void theTypeTableIsGeneratedFromTheMapping() throws Exception {
        StringBuilder table =
                new StringBuilder(
                        "| Spark type | Tablestore cells read into it | Written as | Primary key"
                                + " (writing) | Note |\n|---|---|---|---|---|\n");
        for (SparkTypes.Mapping m : SparkTypes.MAPPINGS) {
            table.append("| `")
                    .append(m.type().simpleString())
                    .append("` | ")
                    .append(
                            m.reads().isEmpty()
                                    ? "(none)"
                                    : m.reads().entrySet().stream()
                                            .map(e -> e.getKey() + condition(e.getValue()))
                                            .collect(Collectors.joining(", ")))
                    .append(" | ")
                    .append(m.writes())
                    .append(" | ")
                    .append(m.key() ? "yes" : "no")
                    .append(" | ")
                    .append(m.note())
                    .append(" |\n");
        }
        GeneratedDocs.check(GeneratedDocs.page("spark.md"), "spark-types", table.toString());
    }

    private static String condition(SparkTypes.Accepts accepts) {
        return switch (accepts) {
            case ALWAYS -> "";
            case IN_RANGE -> " in the type's range";
            case EXACTLY -> " up to 2^53 in magnitude";
        };
    }

    private static boolean accepted(DataType type, CellValue cell) {
        SparkTypes.Accepts accepts =
                SparkTypes.mapping(type).map(m -> m.reads().get(cell.type())).orElse(null);
        if (accepts == null) {
            return false;
        }
        return switch (accepts) {
            case ALWAYS -> true;
            case EXACTLY -> cell.asInteger() >= -(1L << 53) && cell.asInteger() <= 1L << 53;
            case IN_RANGE -> inRange(type, cell.asInteger());
        };
    }

    private static boolean inRange(DataType type, long v) {
        if (type.equals(DataTypes.ByteType)) {
            return v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE;
        }
        if (type.equals(DataTypes.ShortType)) {
            return v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
        }
        return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
    }
}
