package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * {@link RowDataChangeRecordDeserializer}'s row written straight from the response: fields by name
 * from the primary key and the columns a change puts (a key column wins over an attribute of the
 * same name, a later put over an earlier one), the same values and row kinds. A value that does not
 * fit its field, or a NOT NULL field left empty, is left to the deserializer, which names it. The
 * {@value ValuesField#NAME} map, when the row has it, is filled as the deserializer fills it.
 */
final class RowDataChangeWriter implements ChangeWriter<RowData> {

    private static final int NO_FIELD = -1;

    private final Map<String, Integer> fieldsByName = new HashMap<>();
    private final LogicalTypeRoot[] roots;
    private final boolean[] nullable;
    private final boolean[] fromKey;
    private final int valuesField;
    private final boolean keepsDeletes;
    private final String[] keyNames = new String[4];
    private int keyCount;
    private Map<StringData, StringData> texts;
    // Changes of one channel mostly repeat the column names of the one before (shared instances
    // within a response), so each column index keeps its last name and field.
    private String[] names = new String[0];
    private int[] fieldOfColumn = new int[0];
    private StringData[] nameTexts = new StringData[0];
    private Action action = Action.PUT;
    private GenericRowData row;
    private boolean general;

    RowDataChangeWriter(RowType rowType, int valuesField, boolean keepsDeletes) {
        List<RowType.RowField> fields = rowType.getFields();
        this.roots = new LogicalTypeRoot[fields.size()];
        this.nullable = new boolean[fields.size()];
        this.fromKey = new boolean[fields.size()];
        this.valuesField = valuesField;
        this.keepsDeletes = keepsDeletes;
        for (int i = 0; i < fields.size(); i++) {
            if (i != valuesField) { // an attribute column named like the map is in the map
                fieldsByName.put(fields.get(i).getName(), i);
            }
            roots[i] = fields.get(i).getType().getTypeRoot();
            nullable[i] = fields.get(i).getType().isNullable();
        }
    }

    @Override
    public void begin(Action action, int columnCount, SequenceInfo sequence, String channelId) {
        this.action = action;
        this.general = false;
        this.row = new GenericRowData(kindOf(action), roots.length);
        Arrays.fill(fromKey, false);
        keyCount = 0;
        if (valuesField != NO_FIELD) {
            texts = new LinkedHashMap<>(); // one map per row: rows outlive the writer's next change
        }
        if (names.length < columnCount) {
            names = Arrays.copyOf(names, columnCount);
            fieldOfColumn = Arrays.copyOf(fieldOfColumn, columnCount);
            nameTexts = Arrays.copyOf(nameTexts, columnCount);
        }
    }

    @Override
    public void primaryKey(int position, String name, Cell value) {
        if (keyCount < keyNames.length) {
            keyNames[keyCount++] = name;
        }
        int field = fieldsByName.getOrDefault(name, NO_FIELD);
        if (field != NO_FIELD) {
            set(field, value);
            fromKey[field] = true;
        }
    }

    @Override
    public void column(
            int index, String name, ColumnOperation operation, Cell value, long timestampMillis) {
        int field = fieldOf(index, name);
        if (texts != null && !isKey(name)) {
            if (operation == ColumnOperation.PUT) {
                texts.put(nameTexts[index], ValuesField.text(value));
            } else if (keepsDeletes) {
                texts.putIfAbsent(nameTexts[index], null);
            }
        }
        if (operation != ColumnOperation.PUT) {
            return; // a deleted column is null in the row unless the change also puts it
        }
        if (field != NO_FIELD && !fromKey[field]) {
            set(field, value);
        }
    }

    @Override
    public Action action() {
        return action;
    }

    @Override
    public RowData finish() {
        if (general) {
            return null;
        }
        if (texts != null) {
            row.setField(valuesField, ValuesField.of(texts));
        }
        for (int i = 0; i < roots.length; i++) {
            if (!nullable[i] && row.isNullAt(i)) {
                return null; // the deserializer names the NOT NULL field without a value
            }
        }
        return row;
    }

    private int fieldOf(int index, String name) {
        String known = names[index];
        if (known != name && !name.equals(known)) {
            names[index] = name;
            fieldOfColumn[index] = fieldsByName.getOrDefault(name, NO_FIELD);
            nameTexts[index] = StringData.fromString(name);
        }
        return fieldOfColumn[index];
    }

    /** Whether the change's key has a column of this name (which no attribute replaces). */
    private boolean isKey(String name) {
        for (int i = 0; i < keyCount; i++) {
            if (keyNames[i].equals(name)) {
                return true;
            }
        }
        return false;
    }

    private void set(int field, Cell value) {
        Object converted = convert(roots[field], value);
        if (converted == null) {
            general = true;
        } else {
            row.setField(field, converted);
        }
    }

    /**
     * The field value of {@code cell}, as the deserializer converts it; null when it does not fit.
     */
    static Object convert(LogicalTypeRoot root, Cell cell) {
        CellValue.Type type = cell.type();
        switch (root) {
            case CHAR:
            case VARCHAR:
                return type == CellValue.Type.STRING ? StringData.fromBytes(copy(cell)) : null;
            case BIGINT:
                return type == CellValue.Type.INTEGER ? (Object) cell.asInteger() : null;
            case INTEGER:
            case SMALLINT:
            case TINYINT:
                return type == CellValue.Type.INTEGER ? narrow(root, cell.asInteger()) : null;
            case DOUBLE:
            case FLOAT:
                return floating(root, cell);
            case BOOLEAN:
                return type == CellValue.Type.BOOLEAN ? (Object) cell.asBoolean() : null;
            default:
                return type == CellValue.Type.BINARY ? copy(cell) : null;
        }
    }

    private static Object narrow(LogicalTypeRoot root, long value) {
        switch (root) {
            case TINYINT:
                return value == (byte) value ? (Object) (byte) value : null;
            case SMALLINT:
                return value == (short) value ? (Object) (short) value : null;
            default:
                return value == (int) value ? (Object) (int) value : null;
        }
    }

    private static Object floating(LogicalTypeRoot root, Cell cell) {
        double value;
        if (cell.type() == CellValue.Type.DOUBLE) {
            value = cell.asDouble();
        } else if (cell.type() == CellValue.Type.INTEGER) {
            value = cell.asInteger();
        } else {
            return null;
        }
        return root == LogicalTypeRoot.FLOAT ? (Object) (float) value : (Object) value;
    }

    /** The cell's bytes, copied: the cell is a view valid only during the visit. */
    private static byte[] copy(Cell cell) {
        int offset = cell.bytesOffset();
        return Arrays.copyOfRange(cell.bytesArray(), offset, offset + cell.bytesLength());
    }

    private static RowKind kindOf(Action action) {
        switch (action) {
            case UPDATE:
                return RowKind.UPDATE_AFTER;
            case DELETE:
                return RowKind.DELETE;
            default:
                return RowKind.INSERT;
        }
    }
}
