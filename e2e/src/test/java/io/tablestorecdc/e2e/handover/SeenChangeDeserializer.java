package io.tablestorecdc.e2e.handover;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.e2e.flink.OrderChangeDeserializer;
import io.tablestorecdc.e2e.orders.OrderChange;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/** The demo's order changes, with the server sequence that identifies each one. */
public final class SeenChangeDeserializer
        implements io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer<SeenChange> {

    private static final long serialVersionUID = 1L;

    private final OrderChangeDeserializer orders = new OrderChangeDeserializer();

    @Override
    public void deserialize(ChangeRecord record, Collector<SeenChange> out) {
        SequenceInfo seq = record.sequence();
        orders.deserialize(
                record,
                new Collector<OrderChange>() {
                    @Override
                    public void collect(OrderChange change) {
                        out.collect(
                                SeenChange.of(
                                                change,
                                                seq.epoch(),
                                                seq.timestampMicros(),
                                                seq.rowIndex())
                                        .from(record.table()));
                    }

                    @Override
                    public void close() {}
                });
    }

    @Override
    public TypeInformation<SeenChange> getProducedType() {
        return TypeInformation.of(SeenChange.class);
    }
}
