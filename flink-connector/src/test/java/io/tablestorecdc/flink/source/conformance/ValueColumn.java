package io.tablestorecdc.flink.source.conformance;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/** Turns a change into the string value it puts in column {@code v}: the record the suite wrote. */
final class ValueColumn implements ChangeRecordDeserializer<String> {

    static final String NAME = "v";

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ChangeRecord record, Collector<String> out)
            throws InvalidChangeRecordException {
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.name().equals(NAME)
                    && column.operation() == ChangeRecord.ColumnOperation.PUT) {
                out.collect(column.value().asString());
                return;
            }
        }
        throw new InvalidChangeRecordException(
                record.action()
                        + " of "
                        + record.primaryKey()
                        + " in channel "
                        + record.channelId()
                        + " puts no column '"
                        + NAME
                        + "'; the suite writes only puts of it");
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }
}
