package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The cases every Flink converter is held to: a column of each type, a cell of each type with the
 * edges of every integer range, and what {@link CellTypes#MAPPINGS} says a reader does with it.
 */
public final class CellTypeCases {

    private CellTypeCases() {}

    /** A column type of every root the mapping covers, and some it does not. */
    public static List<LogicalType> columnTypes() {
        return List.of(
                new VarCharType(VarCharType.MAX_LENGTH),
                new CharType(4),
                new BigIntType(),
                new IntType(),
                new SmallIntType(),
                new TinyIntType(),
                new DoubleType(),
                new FloatType(),
                new BooleanType(),
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                new BinaryType(2),
                new DecimalType(10, 2),
                new DateType(),
                new TimestampType(3));
    }

    /** A cell of each type, the integers at the edges of every narrower range. */
    public static List<CellValue> cells() {
        return List.of(
                CellValue.ofString("text"),
                CellValue.ofInteger(5),
                CellValue.ofInteger(Byte.MAX_VALUE + 1),
                CellValue.ofInteger(Short.MIN_VALUE - 1),
                CellValue.ofInteger(Integer.MAX_VALUE + 1L),
                CellValue.ofInteger(Long.MIN_VALUE),
                CellValue.ofDouble(1.5),
                CellValue.ofBoolean(true),
                CellValue.ofBinary("ab".getBytes(StandardCharsets.UTF_8)));
    }

    /** Whether the mapping says a reader takes {@code cell} into a column of {@code type}. */
    public static boolean accepted(LogicalType type, CellValue cell) {
        return CellTypes.mapping(type.getTypeRoot())
                .map(m -> m.reads().get(cell.type()))
                .map(accepts -> accepts == CellTypes.Accepts.ALWAYS || inRange(type, cell))
                .orElse(false);
    }

    private static boolean inRange(LogicalType type, CellValue cell) {
        long v = cell.asInteger();
        LogicalTypeRoot root = type.getTypeRoot();
        return switch (root) {
            case TINYINT -> v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE;
            case SMALLINT -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
            case INTEGER -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
            default -> throw new IllegalStateException("no range for " + root);
        };
    }
}
