package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RecordSequenceInfo;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.List;

/**
 * Walks the SDK's {@link StreamRecord} for a {@link ChangeVisitor}, checking what the server sent,
 * and builds our {@link ChangeRecord} that way: the SDK's decoding of a response, kept in test code
 * as the reference {@link PlainBufferRecordPage} is held against ({@code
 * PlainBufferRecordPageITCase}) and for the tests that script the SDK's tunnel client. Not
 * thread-safe: one instance per page.
 */
final class ChangeRecordConverter {

    private final String channelId;
    private final ColumnNames keyNames;
    private final ColumnNames names;
    private final ColumnNames beforeNames = new ColumnNames();
    private final SdkCells.KeyCell keyCell;
    private final SdkCells.ColumnCell columnCell;

    ChangeRecordConverter(String channelId, ColumnNames names) {
        this.channelId = channelId;
        this.names = names;
        this.keyNames = new ColumnNames();
        this.keyCell = new SdkCells.KeyCell(channelId);
        this.columnCell = new SdkCells.ColumnCell(channelId);
    }

    static ChangeRecord toChangeRecord(StreamRecord record, String channelId) {
        return new ChangeRecordConverter(channelId, new ColumnNames()).toChangeRecord(record);
    }

    ChangeRecord toChangeRecord(StreamRecord record) {
        ChangeRecordBuilder builder = new ChangeRecordBuilder();
        visit(record, builder);
        return builder.build();
    }

    /** Passes {@code record}'s parts to {@code visitor}, in order. */
    void visit(StreamRecord record, ChangeVisitor visitor) {
        List<RecordColumn> columns = record.getColumns();
        visitor.begin(
                action(record),
                columns == null ? 0 : columns.size(),
                sequence(record.getSequenceInfo()),
                channelId);
        visitPrimaryKey(record.getPrimaryKey(), visitor);
        if (columns != null) {
            for (int i = 0; i < columns.size(); i++) {
                visitColumn(i, columns.get(i), visitor);
            }
        }
        List<RecordColumn> before = record.getOriginColumns();
        if (before != null) {
            for (int i = 0; i < before.size(); i++) {
                visitBefore(i, before.size(), before.get(i), visitor);
            }
        }
    }

    private void visitBefore(int index, int count, RecordColumn recordColumn, ChangeVisitor v) {
        Column column = recordColumn.getColumn();
        String name = beforeNames.of(index, column.getName());
        if (recordColumn.getColumnType() != RecordColumn.ColumnType.PUT
                || column.getValue() == null) {
            throw PlainBufferRecordPage.malformed(
                    channelId, "before-image column " + name + " without a value");
        }
        long timestamp = column.hasSetTimestamp() ? column.getTimestamp() : 0L;
        v.before(index, count, name, columnCell.of(name, column.getValue()), timestamp);
    }

    /** The ordering of {@code record}, without walking the rest of it. */
    static SequenceInfo sequenceOf(StreamRecord record) {
        return sequence(record.getSequenceInfo());
    }

    private Action action(StreamRecord record) {
        if (record.getRecordType() == null) {
            throw PlainBufferRecordPage.malformed(channelId, "a record without an action type");
        }
        switch (record.getRecordType()) {
            case PUT:
                return Action.PUT;
            case UPDATE:
                return Action.UPDATE;
            case DELETE:
                return Action.DELETE;
            default:
                throw PlainBufferRecordPage.malformed(
                        channelId, "unknown record type " + record.getRecordType());
        }
    }

    private void visitPrimaryKey(PrimaryKey pk, ChangeVisitor visitor) {
        if (pk == null || pk.isEmpty()) {
            throw PlainBufferRecordPage.malformed(channelId, "a record without a primary key");
        }
        PrimaryKeyColumn[] columns = pk.getPrimaryKeyColumns();
        for (int i = 0; i < columns.length; i++) {
            String name = keyNames.of(i, columns[i].getName());
            visitor.primaryKey(i, name, keyCell.of(name, columns[i].getValue()));
        }
    }

    private void visitColumn(int index, RecordColumn recordColumn, ChangeVisitor visitor) {
        Column column = recordColumn.getColumn();
        String name = names.of(index, column.getName());
        long timestamp = column.hasSetTimestamp() ? column.getTimestamp() : 0L;
        ColumnOperation operation = operation(recordColumn, name);
        Cell value =
                operation == ColumnOperation.PUT ? columnCell.of(name, column.getValue()) : null;
        visitor.column(index, name, operation, value, timestamp);
    }

    private ColumnOperation operation(RecordColumn recordColumn, String name) {
        switch (recordColumn.getColumnType()) {
            case PUT:
                return ColumnOperation.PUT;
            case DELETE_ONE_VERSION:
                return ColumnOperation.DELETE_ONE_VERSION;
            case DELETE_ALL_VERSION:
                return ColumnOperation.DELETE_ALL_VERSION;
            default:
                throw PlainBufferRecordPage.malformed(
                        channelId,
                        "column " + name + " with operation " + recordColumn.getColumnType());
        }
    }

    private static SequenceInfo sequence(RecordSequenceInfo info) {
        return info == null
                ? SequenceInfo.NONE
                : new SequenceInfo(info.getEpoch(), info.getTimestamp(), info.getRowIndex());
    }
}
