package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.List;

/**
 * The SDK's records of one response, converted one by one when read. The column names of the page
 * are shared (see {@link ColumnNames}). Not thread-safe: read by one thread at a time.
 */
final class SdkRecordPage implements RecordPage {

    private final List<StreamRecord> records;
    private final ChangeRecordConverter converter;

    SdkRecordPage(List<StreamRecord> records, String channelId) {
        this.records = List.copyOf(records);
        this.converter = new ChangeRecordConverter(channelId, new ColumnNames());
    }

    @Override
    public int size() {
        return records.size();
    }

    @Override
    public ChangeRecord record(int index) {
        return converter.toChangeRecord(records.get(index));
    }

    @Override
    public SequenceInfo sequence(int index) {
        return ChangeRecordConverter.sequenceOf(records.get(index));
    }

    @Override
    public void visit(int index, ChangeVisitor visitor) {
        converter.visit(records.get(index), visitor);
    }

    @Override
    public String toString() {
        return "SdkRecordPage[" + records.size() + " records]";
    }
}
