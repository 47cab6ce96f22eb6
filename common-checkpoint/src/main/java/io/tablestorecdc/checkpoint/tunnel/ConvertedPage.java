package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.List;

/** A {@link RecordPage} of {@link ChangeRecord}s already built (tests, fakes, replays). */
record ConvertedPage(List<ChangeRecord> records) implements RecordPage {

    @Override
    public int size() {
        return records.size();
    }

    @Override
    public ChangeRecord record(int index) {
        return records.get(index);
    }

    @Override
    public SequenceInfo sequence(int index) {
        return records.get(index).sequence();
    }

    @Override
    public void visit(int index, ChangeVisitor visitor) {
        ChangeRecord record = records.get(index);
        List<ColumnChange> columns = record.columns();
        visitor.begin(record.action(), columns.size(), record.sequence(), record.channelId());
        List<ChangeRecord.PrimaryKeyColumn> key = record.primaryKey();
        for (int i = 0; i < key.size(); i++) {
            visitor.primaryKey(i, key.get(i).name(), key.get(i).value());
        }
        for (int i = 0; i < columns.size(); i++) {
            ColumnChange c = columns.get(i);
            visitor.column(i, c.name(), c.operation(), c.value(), c.timestampMillis());
        }
        List<ColumnChange> before = record.before();
        for (int i = 0; i < before.size(); i++) {
            ColumnChange c = before.get(i);
            visitor.before(i, before.size(), c.name(), c.value(), c.timestampMillis());
        }
    }

    @Override
    public List<ChangeRecord> asList() {
        return records;
    }
}
