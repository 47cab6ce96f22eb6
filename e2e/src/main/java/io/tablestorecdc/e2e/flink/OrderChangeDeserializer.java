package io.tablestorecdc.e2e.flink;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/** Turns the source's change records into {@link OrderChange} POJOs. */
public final class OrderChangeDeserializer implements ChangeRecordDeserializer<OrderChange> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ChangeRecord record, Collector<OrderChange> out) {
        out.collect(toChange(record));
    }

    static OrderChange toChange(ChangeRecord record) {
        OrderChange change =
                OrderChange.of(
                        record.primaryKey().get(0).value().asString(),
                        OrderChange.Action.valueOf(record.action().name()),
                        record.channelId(),
                        record.commitTimestampMicros());
        change.table = record.table();
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                change.put(column.name(), column.value().toJava());
            } else {
                change.delete(column.name());
            }
        }
        return change;
    }

    @Override
    public TypeInformation<OrderChange> getProducedType() {
        return TypeInformation.of(OrderChange.class);
    }
}
