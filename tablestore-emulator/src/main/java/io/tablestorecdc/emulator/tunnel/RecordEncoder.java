package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.PlainBufferBuilder;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCell;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedOutputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConsts;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferOutputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.table.RowChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes tunnel records: one PlainBuffer row with header per record, as the SDK's parser wants
 * (PUT cells with value and timestamp, DELETE_ONE_VERSION with a timestamp, DELETE_ALL_VERSION with
 * neither, a DELETE_ROW as the primary key plus the row-delete marker). Stream records carry a
 * sequence-info extension written by hand, since the SDK's setters for it are package-private; a
 * change of a table whose stream names origin columns carries the row's values in them before the
 * change as the record's {@code origin_record}.
 */
final class RecordEncoder {

    /** What follows a sequence-info length: epoch, timestamp and row index, each after its tag. */
    static final int SEQ_INFO_BODY = 1 + 4 + 1 + 8 + 1 + 4;

    /** What follows an extension length: the sequence-info tag, its length and its body. */
    static final int EXTENSION_BODY = 1 + 4 + SEQ_INFO_BODY;

    private RecordEncoder() {}

    /** A stream-log entry as a record with its sequence info. */
    static TunnelServiceApi.Record stream(LogEntry entry) {
        RowChange change = entry.change();
        long fallbackMillis = entry.timeNanos() / 1_000_000L;
        List<PlainBufferCell> cells = new ArrayList<>();
        for (RecordColumn column : change.columns()) {
            cells.add(cell(column, fallbackMillis));
        }
        boolean delete = change.type() == StreamRecord.RecordType.DELETE;
        byte[] row = rowBytes(change.primaryKey(), delete ? List.of() : cells, delete);
        byte[] withSeq =
                withSequenceInfo(row, entry.epoch(), entry.timeNanos() / 1000L, entry.rowIndex());
        TunnelServiceApi.Record.Builder record =
                TunnelServiceApi.Record.newBuilder()
                        .setActionType(actionType(change))
                        .setRecord(ByteString.copyFrom(withSeq));
        if (!change.before().isEmpty()) {
            record.setOriginRecord(ByteString.copyFrom(originBytes(change.before())));
        }
        return record.build();
    }

    /**
     * The before-image as the SDK reads an {@code origin_record}: one PlainBuffer row with header
     * and no primary-key cells, each origin column as a PUT cell with its version.
     */
    private static byte[] originBytes(List<Column> before) {
        List<PlainBufferCell> cells = new ArrayList<>(before.size());
        for (Column column : before) {
            cells.add(putCell(column, 0L));
        }
        return encode(new PlainBufferRow(List.of(), cells, false), "origin columns " + before);
    }

    /** A base-data row as a PUT_ROW record with every column version it holds. */
    static TunnelServiceApi.Record base(Row row, long fallbackMillis) {
        List<PlainBufferCell> cells = new ArrayList<>();
        for (Column column : row.getColumns()) {
            cells.add(putCell(column, fallbackMillis));
        }
        return TunnelServiceApi.Record.newBuilder()
                .setActionType(TunnelServiceApi.ActionType.PUT_ROW)
                .setRecord(ByteString.copyFrom(rowBytes(row.getPrimaryKey(), cells, false)))
                .build();
    }

    private static TunnelServiceApi.ActionType actionType(RowChange change) {
        switch (change.type()) {
            case PUT:
                return TunnelServiceApi.ActionType.PUT_ROW;
            case UPDATE:
                return TunnelServiceApi.ActionType.UPDATE_ROW;
            case DELETE:
                return TunnelServiceApi.ActionType.DELETE_ROW;
            default:
                throw new IllegalArgumentException("Unsupported change type " + change.type());
        }
    }

    private static PlainBufferCell cell(RecordColumn column, long fallbackMillis) {
        Column c = column.getColumn();
        switch (column.getColumnType()) {
            case PUT:
                return putCell(c, fallbackMillis);
            case DELETE_ONE_VERSION:
                PlainBufferCell one = named(c.getName());
                one.setCellType(PlainBufferConsts.DELETE_ONE_VERSION);
                one.setCellTimestamp(timestamp(c, fallbackMillis));
                return one;
            case DELETE_ALL_VERSION:
                PlainBufferCell all = named(c.getName());
                all.setCellType(PlainBufferConsts.DELETE_ALL_VERSION);
                return all;
            default:
                throw new IllegalArgumentException(
                        "Unsupported column operation " + column.getColumnType());
        }
    }

    private static PlainBufferCell putCell(Column c, long fallbackMillis) {
        PlainBufferCell cell = named(c.getName());
        cell.setCellValue(c.getValue());
        cell.setCellTimestamp(timestamp(c, fallbackMillis));
        return cell;
    }

    private static PlainBufferCell named(String name) {
        PlainBufferCell cell = new PlainBufferCell();
        cell.setCellName(name);
        return cell;
    }

    private static long timestamp(Column c, long fallbackMillis) {
        return c.hasSetTimestamp() ? c.getTimestamp() : fallbackMillis;
    }

    private static byte[] rowBytes(PrimaryKey key, List<PlainBufferCell> cells, boolean delete) {
        try {
            List<PlainBufferCell> pk = new ArrayList<>();
            for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
                pk.add(PlainBufferConversion.toPlainBufferCell(column));
            }
            return encode(new PlainBufferRow(pk, cells, delete), "row " + key);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode row " + key + " as PlainBuffer", e);
        }
    }

    private static byte[] encode(PlainBufferRow row, String what) {
        try {
            PlainBufferOutputStream out =
                    new PlainBufferOutputStream(
                            PlainBufferBuilder.computePlainBufferRowWithHeader(row));
            new PlainBufferCodedOutputStream(out).writeRowWithHeader(row);
            return out.getBuffer();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode " + what + " as PlainBuffer", e);
        }
    }

    /**
     * Inserts the sequence-info extension before the row's trailing checksum tag and byte; the
     * checksum does not cover the extension.
     */
    static byte[] withSequenceInfo(byte[] row, int epoch, long timestamp, int rowIndex) {
        ByteBuffer out = ByteBuffer.allocate(row.length + 1 + 4 + EXTENSION_BODY);
        out.order(ByteOrder.LITTLE_ENDIAN);
        out.put(row, 0, row.length - 2);
        out.put(PlainBufferConsts.TAG_EXTENSION).putInt(EXTENSION_BODY);
        out.put(PlainBufferConsts.TAG_SEQ_INFO).putInt(SEQ_INFO_BODY);
        out.put(PlainBufferConsts.TAG_SEQ_INFO_EPOCH).putInt(epoch);
        out.put(PlainBufferConsts.TAG_SEQ_INFO_TS).putLong(timestamp);
        out.put(PlainBufferConsts.TAG_SEQ_INFO_ROW_INDEX).putInt(rowIndex);
        out.put(row, row.length - 2, 2);
        return out.array();
    }
}
