package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellText;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The schema-free field {@value #NAME} ({@code MAP<STRING, STRING>}): every attribute column of a
 * change by name, its value as text ({@link CellText}); a column the change deletes maps to NULL
 * when the map's values are nullable. Rows of tables with different columns fit one row type this
 * way.
 */
@Internal
public final class ValuesField {

    /** The field's name, as Spark's column of the same meaning. */
    public static final String NAME = "_values";

    private ValuesField() {}

    /** The index of the {@value #NAME} field in {@code rowType}, or -1 when it has none. */
    public static int indexIn(RowType rowType) {
        return rowType.getFieldNames().indexOf(NAME);
    }

    /** Whether {@code field} is the {@value #NAME} field; fails when it has another type. */
    static boolean is(RowType.RowField field) {
        if (!field.getName().equals(NAME)) {
            return false;
        }
        LogicalType type = field.getType();
        if (type.getTypeRoot() != LogicalTypeRoot.MAP
                || !isText(((MapType) type).getKeyType())
                || !isText(((MapType) type).getValueType())) {
            throw new IllegalArgumentException(
                    "Field '"
                            + NAME
                            + "' has type "
                            + type
                            + ", but this name holds every attribute value as text: declare it as"
                            + " MAP<STRING, STRING>, or rename the field to read a column of that"
                            + " name");
        }
        return true;
    }

    /** Whether a deleted column is kept in the map, as NULL (the map's values are nullable). */
    static boolean keepsDeletes(RowType.RowField field) {
        return ((MapType) field.getType()).getValueType().isNullable();
    }

    private static boolean isText(LogicalType type) {
        return type.is(LogicalTypeFamily.CHARACTER_STRING);
    }

    /** The map value of {@code texts} (kept as it is: one new map per row). */
    static MapData of(Map<StringData, StringData> texts) {
        return new GenericMapData(texts);
    }

    /** A value's text, copied out of the cell (a view is valid only during the visit). */
    static StringData text(Cell value) {
        return StringData.fromBytes(CellText.utf8(value));
    }
}
