package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCell;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConsts;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.journal.RecordFile;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only journal that makes acknowledged table mutations durable: every create, delete and
 * row write is appended and fsync'ed before it is applied and acknowledged, and replayed in order
 * at start. A torn record at the tail (a crash mid-append) is cut off.
 *
 * <p>Format, version 1: the 8-byte magic {@code TSEJRNL1}, then records of {@code int length, int
 * crc32(payload), payload}. A payload starts with a kind byte: 1 = table created (serialized
 * DescribeTableResponse), 2 = table deleted (table name), 3 = row written (table name, record type
 * code 1/2/3, commit time in µs, the row as a PlainBuffer with typed, time-stamped cells), 4 =
 * table updated (UpdateTable: the serialized DescribeTableResponse of the table as it is after it).
 * A journal without kind 4 reads as before.
 */
final class TableJournal implements Closeable {

    static final String FILE_NAME = "tables.journal";
    private static final byte[] MAGIC = {'T', 'S', 'E', 'J', 'R', 'N', 'L', '1'};
    private static final byte CREATED = 1;
    private static final byte DELETED = 2;
    private static final byte WRITTEN = 3;
    private static final byte UPDATED = 4;

    /** Receives the journal's records during replay. */
    interface Replay {
        void created(TableDescription table) throws EmulatorError;

        void deleted(String table) throws EmulatorError;

        void updated(TableDescription table) throws EmulatorError;

        void written(
                String table,
                StreamRecord.RecordType type,
                PrimaryKey key,
                List<RecordColumn> cells,
                long commitMicros)
                throws EmulatorError;
    }

    private final RecordFile file;

    private TableJournal(RecordFile file) {
        this.file = file;
    }

    /** Opens (creating if needed) the journal in {@code dir}, replaying what it holds. */
    static TableJournal open(Path dir, Replay replay) throws IOException {
        RecordFile.Opened opened = RecordFile.open(dir, FILE_NAME, MAGIC);
        for (byte[] payload : opened.payloads()) {
            apply(payload, replay);
        }
        return new TableJournal(opened.file());
    }

    private static void apply(byte[] payload, Replay replay) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        try {
            switch (in.readByte()) {
                case CREATED ->
                        replay.created(
                                TableMetaCodec.fromDescribe(
                                        OtsInternalApi.DescribeTableResponse.parseFrom(
                                                in.readAllBytes())));
                case DELETED -> replay.deleted(in.readUTF());
                case UPDATED ->
                        replay.updated(
                                TableMetaCodec.fromDescribe(
                                        OtsInternalApi.DescribeTableResponse.parseFrom(
                                                in.readAllBytes())));
                case WRITTEN -> applyWrite(in, replay);
                default -> throw new IOException("Unknown journal record kind");
            }
        } catch (EmulatorError e) {
            throw new IOException("Cannot replay the table journal: " + e.getMessage(), e);
        }
    }

    private static void applyWrite(DataInputStream in, Replay replay)
            throws IOException, EmulatorError {
        String table = in.readUTF();
        StreamRecord.RecordType type = typeOf(in.readByte());
        long micros = in.readLong();
        PlainBufferRow row = PlainBufferCodec.readRow(ByteString.copyFrom(in.readAllBytes()));
        replay.written(
                table,
                type,
                PlainBufferCodec.primaryKey(row),
                PlainBufferCodec.updateCells(row),
                micros);
    }

    synchronized void appendCreated(TableDescription table) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(CREATED);
        TableMetaCodec.describe(table).writeTo(bytes);
        append(bytes.toByteArray());
    }

    synchronized void appendUpdated(TableDescription table) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(UPDATED);
        TableMetaCodec.describe(table).writeTo(bytes);
        append(bytes.toByteArray());
    }

    synchronized void appendDeleted(String table) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(DELETED);
        out.writeUTF(table);
        append(bytes.toByteArray());
    }

    synchronized void appendWritten(
            String table,
            StreamRecord.RecordType type,
            PrimaryKey key,
            List<RecordColumn> cells,
            long commitMicros)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(WRITTEN);
        out.writeUTF(table);
        out.writeByte(codeOf(type));
        out.writeLong(commitMicros);
        out.write(encodeRow(key, cells).toByteArray());
        append(bytes.toByteArray());
    }

    private void append(byte[] payload) throws IOException {
        file.append(payload);
    }

    /** The row with typed cells, as UpdateRow sends it; a DELETE row has only its key. */
    private static ByteString encodeRow(PrimaryKey key, List<RecordColumn> cells)
            throws IOException {
        List<PlainBufferCell> pk = new ArrayList<>();
        for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
            pk.add(PlainBufferConversion.toPlainBufferCell(column));
        }
        List<PlainBufferCell> encoded = new ArrayList<>();
        for (RecordColumn cell : cells) {
            encoded.add(encodeCell(cell));
        }
        return PlainBufferCodec.encodePlainBufferRow(new PlainBufferRow(pk, encoded, false));
    }

    private static PlainBufferCell encodeCell(RecordColumn cell) throws IOException {
        Column c = cell.getColumn();
        switch (cell.getColumnType()) {
            case PUT:
                return PlainBufferConversion.toPlainBufferCell(c, false, false, false, (byte) 0);
            case DELETE_ONE_VERSION:
                return PlainBufferConversion.toPlainBufferCell(
                        c, true, false, true, PlainBufferConsts.DELETE_ONE_VERSION);
            default:
                return PlainBufferConversion.toPlainBufferCell(
                        c, true, true, true, PlainBufferConsts.DELETE_ALL_VERSION);
        }
    }

    /** Stable codes, never ordinals: PUT 1, UPDATE 2, DELETE 3. */
    private static byte codeOf(StreamRecord.RecordType type) {
        return switch (type) {
            case PUT -> 1;
            case UPDATE -> 2;
            case DELETE -> 3;
        };
    }

    private static StreamRecord.RecordType typeOf(byte code) throws IOException {
        return switch (code) {
            case 1 -> StreamRecord.RecordType.PUT;
            case 2 -> StreamRecord.RecordType.UPDATE;
            case 3 -> StreamRecord.RecordType.DELETE;
            default ->
                    throw new IOException("Unknown record type code " + code + " in the journal");
        };
    }

    @Override
    public synchronized void close() throws IOException {
        file.close();
    }
}
