package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rules both row conversions ({@link UnsafeChangeRows} and {@link ChangeRowConverter}) apply,
 * kept in one place so that they cannot drift apart: which declared column type a value fits, and
 * the metadata names (a value's text in the map is {@link
 * io.tablestorecdc.checkpoint.model.CellText}).
 */
@Internal
public final class CellRules {

    static final UTF8String[] ACTION_NAMES = utf8Names(Action.values());
    static final UTF8String[] OPERATION_NAMES = utf8Names(ColumnOperation.values());

    // Every integer of at most this magnitude is exactly a double (53-bit mantissa).
    private static final long EXACT_DOUBLE_LIMIT = 1L << 53;

    private CellRules() {}

    private static UTF8String[] utf8Names(Enum<?>[] constants) {
        UTF8String[] utf8 = new UTF8String[constants.length];
        for (Enum<?> c : constants) {
            utf8[c.ordinal()] = UTF8String.fromString(c.name());
        }
        return utf8;
    }

    /**
     * Whether {@code value} fits a column declared as {@code type}: the same type, or an integer
     * into a narrower integer type or a double that holds it exactly.
     */
    public static boolean fits(Cell value, DataType type) {
        return switch (value.type()) {
            case STRING -> is(type, DataTypes.StringType);
            case DOUBLE -> is(type, DataTypes.DoubleType);
            case BOOLEAN -> is(type, DataTypes.BooleanType);
            case BINARY -> is(type, DataTypes.BinaryType);
            case INTEGER -> integerFits(value.asInteger(), type);
        };
    }

    /**
     * The Catalyst value of {@code value} as a column of {@code type}, or {@code noFit} when it
     * does not fit (see {@link #fits}).
     */
    public static Object catalystAs(CellValue value, DataType type, Object noFit) {
        if (!fits(value, type)) {
            return noFit;
        }
        return switch (value.type()) {
            case INTEGER -> integerAs(value.asInteger(), type);
            case STRING -> UTF8String.fromBytes(value.utf8());
            case BINARY -> value.asBinary();
            default -> value.toJava();
        };
    }

    /** An integer as the integer or double type it fits. */
    private static Object integerAs(long v, DataType type) {
        if (type.equals(DataTypes.IntegerType)) {
            return (int) v;
        }
        if (type.equals(DataTypes.ShortType)) {
            return (short) v;
        }
        if (type.equals(DataTypes.ByteType)) {
            return (byte) v;
        }
        return type.equals(DataTypes.DoubleType) ? (Object) (double) v : (Object) v;
    }

    private static boolean integerFits(long v, DataType type) {
        return is(type, DataTypes.LongType)
                || (is(type, DataTypes.IntegerType) && v == (int) v)
                || (is(type, DataTypes.ShortType) && v == (short) v)
                || (is(type, DataTypes.ByteType) && v == (byte) v)
                || (is(type, DataTypes.DoubleType)
                        && v >= -EXACT_DOUBLE_LIMIT
                        && v <= EXACT_DOUBLE_LIMIT);
    }

    // Spark's simple types are singletons: the identity check decides the common case without a
    // call per cell; equals covers any other instance.
    private static boolean is(DataType type, DataType wanted) {
        return type == wanted || type.equals(wanted);
    }
}
