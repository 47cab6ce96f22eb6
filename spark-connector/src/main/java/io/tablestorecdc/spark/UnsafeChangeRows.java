package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellText;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeArrayWriter;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes a change straight from the tunnel response into an {@link UnsafeRow}, with declared
 * attribute columns or the {@value OutputSchema#VALUES} map: no {@code ChangeRecord}, no boxed
 * values, no row Spark has to project again. It handles the common case only and says so by
 * returning null: a value that does not fit its column, a column named twice in one change, a
 * primary key that is not the table's, or a deletion to drop. {@link ChangeRowConverter} then
 * converts the record the general way, which names the problem or counts the drop; both ways give
 * the same row.
 *
 * <p>The returned row is reused by the next call (as Spark's own readers do). Not thread-safe.
 */
final class UnsafeChangeRows implements ChangeVisitor {

    private static final int NO_SLOT = -1;

    private final List<PrimaryKeyColumn> primaryKey;
    private final Map<String, Integer> keySlots = new HashMap<>();
    private final boolean[] optionalKey;
    private final boolean[] keyWritten;
    private final Map<String, Integer> attributeSlots = new HashMap<>();
    private final DataType[] slotTypes;
    private final int attributeBase;
    private final int attributeCount;
    private final int tableSlot;
    private final int metadataBase;
    private final UTF8String tableName;
    private final boolean ignoreDelete;
    private final UnsafeRowWriter row;
    private final UnsafeRowWriter sequence;
    private final UnsafeArrayWriter keys;
    private final UnsafeArrayWriter values;

    // The column names of the change being written, with each one's attribute slot and UTF8String:
    // changes of one channel mostly repeat the names of the one before, so these are kept and
    // updated only where a name differs (names of one response are shared instances).
    private String[] names = new String[0];
    private int[] slots = new int[0];
    private UTF8String[] utf8Names = new UTF8String[0];
    private ColumnOperation[] operations = new ColumnOperation[0];
    // In the map layout: each column's value as text (null for a deletion).
    private byte[][] valueTexts = new byte[0][];
    private final boolean valuesMap;
    private final boolean beforeColumn;
    private final boolean[] attributeWritten;
    private int columnCount;
    private int keyColumnsSeen;
    private Action action;
    private SequenceInfo sequenceInfo;
    private String lastChannelId = "";
    private UTF8String lastChannelUtf8 = UTF8String.fromString("");
    private boolean generalCase;
    // The last names checked for repeats, and the answer.
    private final Set<String> seen = new HashSet<>();
    private String[] checkedNames = new String[0];
    private int checkedCount = -1;
    private boolean checkedDistinct;
    // The column-operations map last written afresh: its bytes, and the names and operations.
    private byte[] keptOperationsBytes = new byte[0];
    private int keptOperationsLength;
    private String[] keptNames; // null until a map is kept
    private ColumnOperation[] keptOperations;

    UnsafeChangeRows(OutputSchema schema, String tableName, boolean ignoreDelete) {
        this.tableName = UTF8String.fromString(tableName);
        this.valuesMap = schema.valuesMap();
        this.beforeColumn = schema.before();
        this.primaryKey = schema.primaryKey();
        this.ignoreDelete = ignoreDelete;
        this.attributeBase = primaryKey.size();
        this.optionalKey = new boolean[primaryKey.size()];
        this.keyWritten = new boolean[primaryKey.size()];
        for (int i = 0; i < primaryKey.size(); i++) {
            keySlots.put(primaryKey.get(i).name(), i);
            optionalKey[i] = schema.optionalKey(primaryKey.get(i).name());
        }
        List<StructField> attributes = schema.attributes();
        this.attributeCount = attributes.size();
        for (int i = 0; i < attributes.size(); i++) {
            attributeSlots.put(attributes.get(i).name(), attributeBase + i);
        }
        this.tableSlot = attributeBase + (valuesMap ? 1 : attributeCount);
        this.metadataBase = tableSlot + 1;
        StructField[] fields = schema.sparkSchema().fields();
        this.slotTypes = new DataType[fields.length];
        for (int i = 0; i < fields.length; i++) {
            slotTypes[i] = fields[i].dataType();
        }
        this.attributeWritten = new boolean[attributeCount];
        this.row = new UnsafeRowWriter(fields.length, 64);
        this.sequence = new UnsafeRowWriter(row, OutputSchema.SEQ_TYPE.size());
        this.keys = new UnsafeArrayWriter(row, 8);
        this.values = new UnsafeArrayWriter(row, 8);
    }

    /** The row of the reader's current record, or null when the general way must convert it. */
    UnsafeRow write(ChannelBatchReader reader) {
        reader.visitCurrent(this);
        return finishRow();
    }

    /** The row of the change just visited, or null when the general way must convert it. */
    UnsafeRow finishRow() {
        return generalCase ? null : finish();
    }

    @Override
    public void begin(Action action, int columnCount, SequenceInfo sequence, String channelId) {
        this.action = action;
        this.sequenceInfo = sequence;
        this.columnCount = columnCount;
        this.keyColumnsSeen = 0;
        this.generalCase = ignoreDelete && action == Action.DELETE;
        if (names.length < columnCount) {
            names = Arrays.copyOf(names, columnCount);
            slots = Arrays.copyOf(slots, columnCount);
            utf8Names = Arrays.copyOf(utf8Names, columnCount);
            operations = Arrays.copyOf(operations, columnCount);
            valueTexts = Arrays.copyOf(valueTexts, columnCount);
        }
        Arrays.fill(attributeWritten, false);
        Arrays.fill(keyWritten, false);
        row.reset();
        row.zeroOutNullBytes();
        if (channelId != lastChannelId && !channelId.equals(lastChannelId)) {
            lastChannelId = channelId;
            lastChannelUtf8 = UTF8String.fromString(channelId);
        }
    }

    @Override
    public void primaryKey(int position, String name, Cell value) {
        if (generalCase) {
            return;
        }
        int slot = keySlot(position, name);
        if (slot == NO_SLOT || keyWritten[slot] || value.type() != primaryKey.get(slot).type()) {
            generalCase = true;
            return;
        }
        if (value.type() == CellValue.Type.INTEGER) {
            row.write(slot, value.asInteger());
        } else {
            writeBytes(slot, value);
        }
        keyWritten[slot] = true;
        keyColumnsSeen++;
    }

    /** The slot of key column {@code name}: mostly its position, as the key comes in order. */
    private int keySlot(int position, String name) {
        if (position < primaryKey.size() && primaryKey.get(position).name().equals(name)) {
            return position;
        }
        return keySlots.getOrDefault(name, NO_SLOT);
    }

    @Override
    public void column(
            int index, String name, ColumnOperation operation, Cell value, long timestampMillis) {
        if (generalCase) {
            return;
        }
        int slot = slotOf(index, name);
        operations[index] = operation;
        if (valuesMap) {
            valueTexts[index] = operation == ColumnOperation.PUT ? CellText.utf8(value) : null;
            return;
        }
        if (slot == NO_SLOT) {
            return;
        }
        if (attributeWritten[slot - attributeBase]) {
            generalCase = true; // a column named twice: the general way keeps the last operation
            return;
        }
        attributeWritten[slot - attributeBase] = true;
        if (operation != ColumnOperation.PUT) {
            row.setNullAt(slot);
        } else if (!fit(slot, value)) {
            generalCase = true;
        }
    }

    /** A change with a before-image goes the general way, which writes {@code _before}. */
    @Override
    public void before(int index, int beforeCount, String name, Cell value, long timestampMillis) {
        generalCase |= beforeColumn;
    }

    private int slotOf(int index, String name) {
        String known = names[index];
        if (known != name && !name.equals(known)) {
            names[index] = name;
            slots[index] = attributeSlots.getOrDefault(name, NO_SLOT);
            utf8Names[index] = UTF8String.fromString(name);
        }
        return slots[index];
    }

    /** Writes {@code value} as the slot's type; false when it does not fit. */
    private boolean fit(int slot, Cell value) {
        DataType type = slotTypes[slot];
        if (!CellRules.fits(value, type)) {
            return false;
        }
        switch (value.type()) {
            case STRING, BINARY -> writeBytes(slot, value);
            case DOUBLE -> row.write(slot, value.asDouble());
            case BOOLEAN -> row.write(slot, value.asBoolean());
            case INTEGER -> writeInteger(slot, value.asInteger(), type);
        }
        return true;
    }

    /** A string's UTF-8 or a binary value's bytes, copied from where the cell holds them. */
    private void writeBytes(int ordinal, Cell value) {
        row.write(ordinal, value.bytesArray(), value.bytesOffset(), value.bytesLength());
    }

    /** An integer as the integer or double type it fits (see {@link CellRules#fits}). */
    private void writeInteger(int slot, long v, DataType type) {
        if (type == DataTypes.IntegerType) {
            row.write(slot, (int) v);
        } else if (type == DataTypes.ShortType) {
            row.write(slot, (short) v);
        } else if (type == DataTypes.ByteType) {
            row.write(slot, (byte) v);
        } else if (type == DataTypes.DoubleType) {
            row.write(slot, (double) v);
        } else {
            row.write(slot, v);
        }
    }

    private UnsafeRow finish() {
        if ((keyColumnsSeen != primaryKey.size() && !keyColumnsMissingAreOptional())
                || !distinctNames()) {
            return null;
        }
        if (valuesMap) {
            writeValues(attributeBase);
        }
        for (int i = 0; i < attributeCount; i++) {
            if (!attributeWritten[i]) {
                row.setNullAt(attributeBase + i);
            }
        }
        row.write(tableSlot, tableName);
        row.write(metadataBase, CellRules.ACTION_NAMES[action.ordinal()]);
        long commitMicros = sequenceInfo.timestampMicros();
        if (commitMicros == 0) {
            row.setNullAt(metadataBase + 1); // a base-data record has no commit time
        } else {
            row.write(metadataBase + 1, commitMicros);
        }
        row.write(metadataBase + 2, lastChannelUtf8);
        writeSequence(metadataBase + 3);
        writeColumnOperations(metadataBase + 4);
        if (beforeColumn) {
            row.setNullAt(metadataBase + 5); // a change with a before-image went the general way
        }
        return row.getRow();
    }

    /** Whether each key column the change lacks is one some table lacks; sets those null. */
    private boolean keyColumnsMissingAreOptional() {
        for (int i = 0; i < keyWritten.length; i++) {
            if (!keyWritten[i]) {
                if (!optionalKey[i]) {
                    return false;
                }
                row.setNullAt(i);
            }
        }
        return true;
    }

    /** Whether the change names each column once; rechecked only when its names changed. */
    private boolean distinctNames() {
        if (columnCount == checkedCount && sameAsChecked()) {
            return checkedDistinct;
        }
        seen.clear();
        for (int i = 0; i < columnCount; i++) {
            seen.add(names[i]);
        }
        checkedNames = Arrays.copyOf(names, columnCount);
        checkedCount = columnCount;
        checkedDistinct = seen.size() == columnCount;
        return checkedDistinct;
    }

    private boolean sameAsChecked() {
        for (int i = 0; i < columnCount; i++) {
            if (names[i] != checkedNames[i]) {
                return false;
            }
        }
        return true;
    }

    private void writeSequence(int ordinal) {
        int start = row.cursor();
        sequence.resetRowWriter();
        sequence.write(0, sequenceInfo.epoch());
        sequence.write(1, sequenceInfo.timestampMicros());
        sequence.write(2, sequenceInfo.rowIndex());
        row.setOffsetAndSizeFromPreviousCursor(ordinal, start);
    }

    /** The map of each column put to its value as text, laid out as Spark's UnsafeMapData. */
    private void writeValues(int ordinal) {
        int puts = 0;
        for (int i = 0; i < columnCount; i++) {
            puts += valueTexts[i] != null ? 1 : 0;
        }
        int start = row.cursor();
        row.grow(8);
        row.increaseCursor(8); // the key array's size in bytes goes here
        keys.initialize(puts);
        for (int i = 0, k = 0; i < columnCount; i++) {
            if (valueTexts[i] != null) {
                keys.write(k++, utf8Names[i]);
            }
        }
        Platform.putLong(row.getBuffer(), start, row.cursor() - start - 8);
        values.initialize(puts);
        for (int i = 0, k = 0; i < columnCount; i++) {
            if (valueTexts[i] != null) {
                values.write(k++, valueTexts[i]);
            }
        }
        row.setOffsetAndSizeFromPreviousCursor(ordinal, start);
    }

    /**
     * The map of column name to operation, laid out as Spark's UnsafeMapData. Changes of a channel
     * mostly name the same columns with the same operations as the one before, so the map's bytes
     * (which hold only offsets relative to themselves) are kept and copied again while they match.
     */
    private void writeColumnOperations(int ordinal) {
        int start = row.cursor();
        if (sameOperationsAsKept()) {
            row.grow(keptOperationsLength);
            Platform.copyMemory(
                    keptOperationsBytes,
                    Platform.BYTE_ARRAY_OFFSET,
                    row.getBuffer(),
                    start,
                    keptOperationsLength);
            row.increaseCursor(keptOperationsLength);
        } else {
            writeColumnOperationsAfresh(start);
            keepOperations(start);
        }
        row.setOffsetAndSizeFromPreviousCursor(ordinal, start);
    }

    private boolean sameOperationsAsKept() {
        if (keptNames == null || columnCount != keptNames.length) {
            return false;
        }
        for (int i = 0; i < columnCount; i++) {
            if (operations[i] != keptOperations[i]
                    || (names[i] != keptNames[i] && !names[i].equals(keptNames[i]))) {
                return false;
            }
        }
        return true;
    }

    private void keepOperations(int start) {
        int length = row.cursor() - start;
        if (keptOperationsBytes.length < length) {
            keptOperationsBytes = new byte[Math.max(length, keptOperationsBytes.length * 2)];
        }
        Platform.copyMemory(
                row.getBuffer(), start, keptOperationsBytes, Platform.BYTE_ARRAY_OFFSET, length);
        keptOperationsLength = length;
        keptNames = Arrays.copyOf(names, columnCount);
        keptOperations = Arrays.copyOf(operations, columnCount);
    }

    private void writeColumnOperationsAfresh(int start) {
        row.grow(8);
        row.increaseCursor(8); // the key array's size in bytes goes here
        keys.initialize(columnCount);
        for (int i = 0; i < columnCount; i++) {
            keys.write(i, utf8Names[i]);
        }
        Platform.putLong(row.getBuffer(), start, row.cursor() - start - 8);
        values.initialize(columnCount);
        for (int i = 0; i < columnCount; i++) {
            values.write(i, CellRules.OPERATION_NAMES[operations[i].ordinal()]);
        }
    }
}
