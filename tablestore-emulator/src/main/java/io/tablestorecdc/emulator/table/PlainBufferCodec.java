package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.PlainBufferBuilder;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCell;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedOutputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConsts;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferOutputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnType;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Reads request rows and writes response rows in Tablestore's PlainBuffer format. */
final class PlainBufferCodec {

    private PlainBufferCodec() {}

    /** Decodes a PlainBuffer holding exactly one row (with header). */
    static PlainBufferRow readRow(ByteString bytes) throws EmulatorError {
        List<PlainBufferRow> rows;
        try {
            rows =
                    new KeyPlaceholderInput(
                                    new PlainBufferInputStream(bytes.asReadOnlyByteBuffer()))
                            .readRowsWithHeader();
        } catch (IOException | RuntimeException e) {
            throw EmulatorError.parameterInvalid("Invalid PlainBuffer row: " + e.getMessage());
        }
        if (rows.size() != 1) {
            throw EmulatorError.parameterInvalid(
                    "Expected one row but the PlainBuffer holds " + rows.size());
        }
        return rows.get(0);
    }

    static PrimaryKey primaryKey(ByteString bytes) throws EmulatorError {
        return primaryKey(readRow(bytes));
    }

    static PrimaryKey primaryKey(PlainBufferRow row) throws EmulatorError {
        try {
            return PlainBufferConversion.toPrimaryKey(row.getPrimaryKey());
        } catch (IOException e) {
            throw EmulatorError.parameterInvalid("Invalid primary key: " + e.getMessage());
        }
    }

    /** The columns of a PutRow: each must have a value and no operation type. */
    static List<RecordColumn> putCells(PlainBufferRow row) throws EmulatorError {
        List<RecordColumn> out = new ArrayList<>();
        for (PlainBufferCell cell : row.getCells()) {
            if (cell.hasCellType() || !cell.hasCellValue()) {
                throw EmulatorError.parameterInvalid(
                        "PutRow column '" + cell.getCellName() + "' must have a value and no type");
            }
            out.add(
                    new RecordColumn(
                            column(cell, cell.getCellValue()), RecordColumn.ColumnType.PUT));
        }
        return out;
    }

    /** The per-column operations of an UpdateRow but its atomic increments. */
    static List<RecordColumn> updateCells(PlainBufferRow row) throws EmulatorError {
        List<RecordColumn> out = new ArrayList<>();
        for (PlainBufferCell cell : row.getCells()) {
            if (!isIncrement(cell)) {
                out.add(updateCell(cell));
            }
        }
        return out;
    }

    /**
     * The atomic increments of an UpdateRow: each column with the INTEGER to add (negative to
     * subtract), without a timestamp (the new value gets the commit time), at most once per row and
     * not also otherwise changed in it.
     */
    static List<Column> increments(PlainBufferRow row) throws EmulatorError {
        List<Column> out = new ArrayList<>();
        Set<String> named = new HashSet<>();
        Set<String> incremented = new HashSet<>();
        for (PlainBufferCell cell : row.getCells()) {
            if (!isIncrement(cell)) {
                named.add(cell.getCellName());
                continue;
            }
            String name = cell.getCellName();
            if (!cell.hasCellValue() || cell.getCellValue().getType() != ColumnType.INTEGER) {
                throw EmulatorError.parameterInvalid(
                        "The atomic increment of column '"
                                + name
                                + "' needs an INTEGER to add; only INTEGER columns can be"
                                + " incremented");
            }
            if (cell.hasCellTimestamp()) {
                throw EmulatorError.parameterInvalid(
                        "The atomic increment of column '"
                                + name
                                + "' must not name a timestamp: the new value gets the time of"
                                + " the write");
            }
            if (!incremented.add(name)) {
                throw EmulatorError.parameterInvalid(
                        "Column '" + name + "' is incremented more than once in one row change");
            }
            out.add(new Column(name, cell.getCellValue()));
        }
        for (Column c : out) {
            if (named.contains(c.getName())) {
                throw EmulatorError.parameterInvalid(
                        "Column '"
                                + c.getName()
                                + "' is both incremented and otherwise changed in one row"
                                + " change");
            }
        }
        return out;
    }

    private static boolean isIncrement(PlainBufferCell cell) {
        return cell.hasCellType() && cell.getCellType() == PlainBufferConsts.INCREMENT;
    }

    private static RecordColumn updateCell(PlainBufferCell cell) throws EmulatorError {
        if (!cell.hasCellType()) {
            if (!cell.hasCellValue()) {
                throw EmulatorError.parameterInvalid(
                        "UpdateRow PUT column '" + cell.getCellName() + "' needs a value");
            }
            return new RecordColumn(column(cell, cell.getCellValue()), RecordColumn.ColumnType.PUT);
        }
        switch (cell.getCellType()) {
            case PlainBufferConsts.DELETE_ONE_VERSION:
                if (!cell.hasCellTimestamp()) {
                    throw EmulatorError.parameterInvalid(
                            "Deleting one version of column '"
                                    + cell.getCellName()
                                    + "' needs that version's timestamp");
                }
                return new RecordColumn(
                        column(cell, ColumnValue.INTERNAL_NULL_VALUE),
                        RecordColumn.ColumnType.DELETE_ONE_VERSION);
            case PlainBufferConsts.DELETE_ALL_VERSION:
                return new RecordColumn(
                        new Column(cell.getCellName(), ColumnValue.INTERNAL_NULL_VALUE),
                        RecordColumn.ColumnType.DELETE_ALL_VERSION);
            default:
                throw EmulatorError.parameterInvalid(
                        "Unknown UpdateRow cell type "
                                + cell.getCellType()
                                + " on column '"
                                + cell.getCellName()
                                + "'");
        }
    }

    private static Column column(PlainBufferCell cell, ColumnValue value) {
        return cell.hasCellTimestamp()
                ? new Column(cell.getCellName(), value, cell.getCellTimestamp())
                : new Column(cell.getCellName(), value);
    }

    /** One row with header; empty bytes for none, as GetRow answers "not found". */
    static ByteString encodeRow(java.util.Optional<Row> row) {
        return row.map(r -> encodeRows(List.of(r))).orElse(ByteString.EMPTY);
    }

    /** Rows after one header; empty bytes for none, as GetRange answers "no rows". */
    static ByteString encodeRows(List<Row> rows) {
        if (rows.isEmpty()) {
            return ByteString.EMPTY;
        }
        try {
            List<PlainBufferRow> pbRows = new ArrayList<>(rows.size());
            int size = 4;
            for (Row row : rows) {
                PlainBufferRow pb = toPlainBuffer(row);
                size += PlainBufferBuilder.computePlainBufferRow(pb);
                pbRows.add(pb);
            }
            PlainBufferOutputStream out = new PlainBufferOutputStream(size);
            PlainBufferCodedOutputStream coded = new PlainBufferCodedOutputStream(out);
            coded.writeHeader();
            for (PlainBufferRow pb : pbRows) {
                coded.writeRow(pb);
            }
            return ByteString.copyFrom(out.getBuffer(), 0, out.count());
        } catch (IOException e) {
            throw new IllegalStateException("Failed to encode rows", e);
        }
    }

    /** One PlainBuffer row with header. */
    static ByteString encodePlainBufferRow(PlainBufferRow row) throws IOException {
        PlainBufferOutputStream out =
                new PlainBufferOutputStream(
                        PlainBufferBuilder.computePlainBufferRowWithHeader(row));
        new PlainBufferCodedOutputStream(out).writeRowWithHeader(row);
        return ByteString.copyFrom(out.getBuffer(), 0, out.count());
    }

    /** A primary key alone (with header), as in next_start_primary_key. */
    static ByteString encodePrimaryKey(PrimaryKey key) {
        try {
            return ByteString.copyFrom(PlainBufferBuilder.buildPrimaryKeyWithHeader(key));
        } catch (IOException e) {
            throw new IllegalStateException("Failed to encode primary key " + key, e);
        }
    }

    /**
     * The SDK's PlainBuffer reader, also taking the {@code AUTO_INCREMENT} placeholder a write
     * names in an auto-increment primary-key column (the SDK writes it but does not read it back).
     */
    private static final class KeyPlaceholderInput extends PlainBufferCodedInputStream {
        private final PlainBufferInputStream in;

        KeyPlaceholderInput(PlainBufferInputStream in) {
            super(in);
            this.in = in;
        }

        @Override
        public PrimaryKeyValue readCellPrimaryKeyValue() throws IOException {
            if (!checkLastTagWas(PlainBufferConsts.TAG_CELL_VALUE)) {
                throw new IOException(
                        "Expect TAG_CELL_VALUE but it was "
                                + PlainBufferConsts.printTag(getLastTag()));
            }
            in.readRawLittleEndian32(); // the value's length
            byte type = in.readRawByte();
            PrimaryKeyValue value =
                    switch (type) {
                        case PlainBufferConsts.VT_INTEGER ->
                                PrimaryKeyValue.fromLong(in.readInt64());
                        case PlainBufferConsts.VT_BLOB ->
                                PrimaryKeyValue.fromBinary(in.readBytes(in.readUInt32()));
                        case PlainBufferConsts.VT_STRING -> {
                            byte[] utf8 = in.readBytes(in.readUInt32());
                            yield PrimaryKeyValue.fromString(
                                    PlainBufferInputStream.bytes2UTFString(utf8), utf8);
                        }
                        case PlainBufferConsts.VT_INF_MIN -> PrimaryKeyValue.INF_MIN;
                        case PlainBufferConsts.VT_INF_MAX -> PrimaryKeyValue.INF_MAX;
                        case PlainBufferConsts.VT_AUTO_INCREMENT -> PrimaryKeyValue.AUTO_INCREMENT;
                        default -> throw new IOException("Unsupported pk type: " + type);
                    };
            readTag();
            return value;
        }
    }

    private static PlainBufferRow toPlainBuffer(Row row) throws IOException {
        List<PlainBufferCell> pk = new ArrayList<>();
        for (PrimaryKeyColumn column : row.getPrimaryKey().getPrimaryKeyColumns()) {
            pk.add(PlainBufferConversion.toPlainBufferCell(column));
        }
        List<PlainBufferCell> cells = new ArrayList<>();
        for (Column column : row.getColumns()) {
            cells.add(
                    PlainBufferConversion.toPlainBufferCell(column, false, false, false, (byte) 0));
        }
        return new PlainBufferRow(pk, cells, false);
    }
}
