package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/** Turns the source's change records into {@link SequencedChange}s. */
public final class SequencedChangeDeserializer
        implements ChangeRecordDeserializer<SequencedChange> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ChangeRecord record, Collector<SequencedChange> out) {
        OrderChange change =
                OrderChange.of(
                        record.primaryKey().get(0).value().asString(),
                        OrderChange.Action.valueOf(record.action().name()),
                        record.channelId(),
                        record.commitTimestampMicros());
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                change.put(column.name(), column.value().toJava());
            } else {
                change.delete(column.name());
            }
        }
        out.collect(
                new SequencedChange(
                        change, record.sequence().epoch(), record.sequence().rowIndex()));
    }

    @Override
    public TypeInformation<SequencedChange> getProducedType() {
        return TypeInformation.of(SequencedChange.class);
    }
}
