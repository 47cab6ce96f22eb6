package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The records of one {@code readrecords} response as the server sent them, PlainBuffer bytes
 * decoded only when a reader delivers a record, straight from the bytes into its visitor: no SDK
 * {@code StreamRecord}, no string per column name or string value unless a visitor asks for one. It
 * walks each record exactly as the SDK's decoding of it is walked (test code's {@code
 * ChangeRecordConverter}: the same parts, names, values and checks; {@code
 * PlainBufferRecordPageITCase} holds them side by side), so either page gives the same {@link
 * ChangeRecord}s and rows.
 *
 * <p>Not thread-safe: read by one thread at a time.
 */
final class PlainBufferRecordPage implements RecordPage {

    private final RecordsResponse records;
    private final String channelId;
    private final PlainBufferRow row = new PlainBufferRow();
    private final PlainBufferRow before = new PlainBufferRow();
    private final BufferCell cell = new BufferCell();
    private final BufferNames keyNames = new BufferNames();
    private final BufferNames names = new BufferNames();
    private final BufferNames beforeNames = new BufferNames();
    private int parsed = -1;
    private SequenceInfo sequence = SequenceInfo.NONE;

    PlainBufferRecordPage(RecordsResponse records, String channelId) {
        this.records = records;
        this.channelId = channelId;
    }

    @Override
    public int size() {
        return records.size();
    }

    @Override
    public ChangeRecord record(int index) {
        ChangeRecordBuilder builder = new ChangeRecordBuilder();
        visit(index, builder);
        return builder.build();
    }

    @Override
    public SequenceInfo sequence(int index) {
        parse(index);
        return sequence;
    }

    @Override
    public void visit(int index, ChangeVisitor visitor) {
        SequenceInfo sequence = sequence(index);
        visitor.begin(action(index), row.cellCount, sequence, channelId);
        for (int k = 0; k < row.keyCount; k++) {
            String name = keyNames.of(k, row, k);
            visitor.primaryKey(k, name, keyCell(name, k));
        }
        for (int c = 0; c < row.cellCount; c++) {
            int i = row.keyCount + c;
            String name = names.of(c, row, i);
            ColumnOperation operation = operation(row.cellType[i]);
            Cell value = operation == ColumnOperation.PUT ? cell.at(row, i) : null;
            visitor.column(c, name, operation, value, row.hasTimestamp[i] ? row.timestamp[i] : 0L);
        }
        if (records.originOffset(index) != RecordsResponse.NO_ORIGIN) {
            visitBefore(index, visitor);
        }
    }

    private void visitBefore(int index, ChangeVisitor visitor) {
        parse(before, records.originOffset(index), records.originLength(index), false);
        int count = before.cellCount;
        for (int c = 0; c < count; c++) {
            int i = before.keyCount + c;
            String name = beforeNames.of(c, before, i);
            if (before.cellType[i] != PlainBufferRow.NONE) {
                throw malformed(channelId, "before-image column " + name + " without a value");
            }
            visitor.before(
                    c,
                    count,
                    name,
                    cell.at(before, i),
                    before.hasTimestamp[i] ? before.timestamp[i] : 0L);
        }
    }

    private void parse(int index) {
        if (parsed == index) {
            return;
        }
        parsed = -1;
        parse(row, records.recordOffset(index), records.recordLength(index), true);
        sequence =
                row.hasSequence
                        ? new SequenceInfo(row.epoch, row.sequenceTimestamp, row.rowIndex)
                        : SequenceInfo.NONE;
        parsed = index;
    }

    /** Parses a record's row where it lies in the response body. */
    private void parse(PlainBufferRow target, int offset, int length, boolean withKey) {
        try {
            target.parse(records.body(), offset, length, withKey);
        } catch (PlainBufferRow.Malformed e) {
            throw malformed(channelId, e.getMessage());
        }
    }

    private Action action(int index) {
        return switch (records.action(index)) {
            case RecordsResponse.PUT_ROW -> Action.PUT;
            case RecordsResponse.UPDATE_ROW -> Action.UPDATE;
            default -> Action.DELETE; // RecordsResponse accepted no other
        };
    }

    private Cell keyCell(String name, int i) {
        byte type = row.valueType[i];
        if (type == PlainBufferRow.VT_INF_MIN || type == PlainBufferRow.VT_INF_MAX) {
            throw malformed(channelId, "primary-key column " + name + " holds a range marker");
        }
        if (type == PlainBufferRow.NONE) {
            throw malformed(channelId, "primary-key column " + name + " without a value");
        }
        return cell.at(row, i);
    }

    private static ColumnOperation operation(byte cellType) {
        // PlainBufferRow accepted only these three.
        return switch (cellType) {
            case PlainBufferRow.DELETE_ONE_VERSION -> ColumnOperation.DELETE_ONE_VERSION;
            case PlainBufferRow.DELETE_ALL_VERSION -> ColumnOperation.DELETE_ALL_VERSION;
            default -> ColumnOperation.PUT;
        };
    }

    @Override
    public String toString() {
        return "PlainBufferRecordPage[" + records.size() + " records]";
    }

    /** A value of a parsed row, read where it lies. Reused from cell to cell. */
    private static final class BufferCell implements Cell {
        private PlainBufferRow row;
        private int i;
        private CellValue.Type type;

        BufferCell at(PlainBufferRow row, int i) {
            this.row = row;
            this.i = i;
            this.type =
                    switch (row.valueType[i]) {
                        case PlainBufferRow.VT_INTEGER -> CellValue.Type.INTEGER;
                        case PlainBufferRow.VT_DOUBLE -> CellValue.Type.DOUBLE;
                        case PlainBufferRow.VT_BOOLEAN -> CellValue.Type.BOOLEAN;
                        case PlainBufferRow.VT_STRING -> CellValue.Type.STRING;
                        default -> CellValue.Type.BINARY; // PlainBufferRow accepted no other
                    };
            return this;
        }

        @Override
        public CellValue.Type type() {
            return type;
        }

        @Override
        public long asInteger() {
            check(CellValue.Type.INTEGER);
            return row.valueBits[i];
        }

        @Override
        public double asDouble() {
            check(CellValue.Type.DOUBLE);
            return Double.longBitsToDouble(row.valueBits[i]);
        }

        @Override
        public boolean asBoolean() {
            check(CellValue.Type.BOOLEAN);
            return row.valueBits[i] != 0;
        }

        @Override
        public String asString() {
            check(CellValue.Type.STRING);
            return new String(
                    row.buf, row.valueOffset[i], row.valueLength[i], StandardCharsets.UTF_8);
        }

        @Override
        public byte[] utf8() {
            check(CellValue.Type.STRING);
            return copyOfValue();
        }

        @Override
        public byte[] binaryView() {
            check(CellValue.Type.BINARY);
            return copyOfValue();
        }

        @Override
        public byte[] bytesArray() {
            checkBytes();
            return row.buf;
        }

        @Override
        public int bytesOffset() {
            checkBytes();
            return row.valueOffset[i];
        }

        @Override
        public int bytesLength() {
            checkBytes();
            return row.valueLength[i];
        }

        @Override
        public CellValue toCellValue() {
            return CellValue.copyOf(this);
        }

        private byte[] copyOfValue() {
            int from = row.valueOffset[i];
            return Arrays.copyOfRange(row.buf, from, from + row.valueLength[i]);
        }

        private void checkBytes() {
            if (type != CellValue.Type.STRING && type != CellValue.Type.BINARY) {
                throw new IllegalStateException("Cell value is " + type + ", not bytes");
            }
        }

        private void check(CellValue.Type wanted) {
            if (type != wanted) {
                throw new IllegalStateException("Cell value is " + type + ", not " + wanted);
            }
        }
    }

    /** A record the server sent that cannot be read, named with its channel. */
    static TunnelException malformed(String channelId, String what) {
        return new TunnelException(
                TunnelException.Kind.MALFORMED_RESPONSE,
                "The tunnel server sent "
                        + what
                        + " in channel "
                        + channelId
                        + "; the record cannot be read. This is a server or SDK incompatibility:"
                        + " report it with the SDK version.");
    }
}
