package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RecordSequenceInfo;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the SDK's {@link StreamRecord} into our {@link ChangeRecord}, so that no SDK type leaves
 * the tunnel package (and none travels through engine serialization).
 */
final class ChangeRecordConverter {

    private ChangeRecordConverter() {}

    static ChangeRecord toChangeRecord(StreamRecord record, String channelId) {
        return toChangeRecord(record, channelId, new ColumnNames());
    }

    /** As above, with the column names of one response shared through {@code names}. */
    static ChangeRecord toChangeRecord(StreamRecord record, String channelId, ColumnNames names) {
        return new ChangeRecord(
                action(record, channelId),
                primaryKey(record.getPrimaryKey(), channelId, names),
                columns(record.getColumns(), channelId, names),
                sequence(record.getSequenceInfo()),
                channelId);
    }

    private static Action action(StreamRecord record, String channelId) {
        if (record.getRecordType() == null) {
            throw malformed(channelId, "a record without an action type");
        }
        switch (record.getRecordType()) {
            case PUT:
                return Action.PUT;
            case UPDATE:
                return Action.UPDATE;
            case DELETE:
                return Action.DELETE;
            default:
                throw malformed(channelId, "unknown record type " + record.getRecordType());
        }
    }

    private static List<ChangeRecord.PrimaryKeyColumn> primaryKey(
            PrimaryKey pk, String channelId, ColumnNames names) {
        if (pk == null || pk.isEmpty()) {
            throw malformed(channelId, "a record without a primary key");
        }
        List<ChangeRecord.PrimaryKeyColumn> result = new ArrayList<>();
        for (PrimaryKeyColumn column : pk.getPrimaryKeyColumns()) {
            result.add(
                    new ChangeRecord.PrimaryKeyColumn(
                            names.of(column.getName()),
                            pkValue(column.getName(), column.getValue(), channelId)));
        }
        return result;
    }

    private static CellValue pkValue(String name, PrimaryKeyValue value, String channelId) {
        if (value.isInfMin() || value.isInfMax() || value.isPlaceHolderForAutoIncr()) {
            throw malformed(channelId, "primary-key column " + name + " holds a range marker");
        }
        switch (value.getType()) {
            case STRING:
                return CellValue.ofString(value.asString());
            case INTEGER:
                return CellValue.ofInteger(value.asLong());
            case BINARY:
                return CellValue.ofBinary(value.asBinary());
            default:
                throw malformed(
                        channelId, "primary-key column " + name + " has type " + value.getType());
        }
    }

    private static List<ColumnChange> columns(
            List<RecordColumn> columns, String channelId, ColumnNames names) {
        List<ColumnChange> result = new ArrayList<>();
        if (columns == null) {
            return result;
        }
        for (RecordColumn column : columns) {
            result.add(columnChange(column, channelId, names.of(column.getColumn().getName())));
        }
        return result;
    }

    private static ColumnChange columnChange(
            RecordColumn recordColumn, String channelId, String name) {
        Column column = recordColumn.getColumn();
        long timestamp = column.hasSetTimestamp() ? column.getTimestamp() : 0L;
        switch (recordColumn.getColumnType()) {
            case PUT:
                return new ColumnChange(
                        name, ColumnOperation.PUT, cellValue(column, channelId), timestamp);
            case DELETE_ONE_VERSION:
                return new ColumnChange(name, ColumnOperation.DELETE_ONE_VERSION, null, timestamp);
            case DELETE_ALL_VERSION:
                return new ColumnChange(name, ColumnOperation.DELETE_ALL_VERSION, null, timestamp);
            default:
                throw malformed(
                        channelId,
                        "column "
                                + column.getName()
                                + " with operation "
                                + recordColumn.getColumnType());
        }
    }

    private static CellValue cellValue(Column column, String channelId) {
        ColumnValue value = column.getValue();
        if (value == null) {
            throw malformed(channelId, "a PUT of column " + column.getName() + " without a value");
        }
        switch (value.getType()) {
            case STRING:
                return CellValue.ofString(value.asString());
            case INTEGER:
                return CellValue.ofInteger(value.asLong());
            case DOUBLE:
                return CellValue.ofDouble(value.asDouble());
            case BOOLEAN:
                return CellValue.ofBoolean(value.asBoolean());
            case BINARY:
                return CellValue.ofBinary(value.asBinary());
            default:
                throw new TunnelException(
                        Kind.MALFORMED_RESPONSE,
                        "Column "
                                + column.getName()
                                + " in channel "
                                + channelId
                                + " has type "
                                + value.getType()
                                + ", which tablestore-cdc does not read yet (it reads string,"
                                + " integer, double, boolean and binary columns). Store the column"
                                + " in one of those types, or report the need.");
        }
    }

    private static SequenceInfo sequence(RecordSequenceInfo info) {
        return info == null
                ? SequenceInfo.NONE
                : new SequenceInfo(info.getEpoch(), info.getTimestamp(), info.getRowIndex());
    }

    private static TunnelException malformed(String channelId, String what) {
        return new TunnelException(
                Kind.MALFORMED_RESPONSE,
                "The tunnel server sent "
                        + what
                        + " in channel "
                        + channelId
                        + "; the record cannot be read. This is a server or SDK incompatibility:"
                        + " report it with the SDK version.");
    }
}
