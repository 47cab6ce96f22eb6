package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.ArrayList;
import java.util.List;

/** Builds the {@link ChangeRecord} one visit of a record describes; one builder per record. */
final class ChangeRecordBuilder implements ChangeVisitor {

    private Action action;
    private SequenceInfo sequence;
    private String channelId;
    private final List<ChangeRecord.PrimaryKeyColumn> primaryKey = new ArrayList<>(2);
    private List<ColumnChange> columns = List.of();
    private List<ColumnChange> before = List.of();

    @Override
    public void begin(Action action, int columnCount, SequenceInfo sequence, String channelId) {
        this.action = action;
        this.sequence = sequence;
        this.channelId = channelId;
        this.primaryKey.clear();
        this.columns = new ArrayList<>(columnCount);
        this.before = List.of();
    }

    @Override
    public void primaryKey(int position, String name, Cell value) {
        primaryKey.add(new ChangeRecord.PrimaryKeyColumn(name, value.toCellValue()));
    }

    @Override
    public void column(
            int index, String name, ColumnOperation operation, Cell value, long timestampMillis) {
        columns.add(
                new ColumnChange(
                        name,
                        operation,
                        value == null ? null : value.toCellValue(),
                        timestampMillis));
    }

    @Override
    public void before(int index, int beforeCount, String name, Cell value, long timestampMillis) {
        if (index == 0) {
            before = new ArrayList<>(beforeCount);
        }
        before.add(
                new ColumnChange(name, ColumnOperation.PUT, value.toCellValue(), timestampMillis));
    }

    ChangeRecord build() {
        return new ChangeRecord(action, primaryKey, columns, sequence, channelId, before);
    }
}
