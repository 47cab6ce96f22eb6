package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/** Renders a change as {@code PUT id=1 v='a'} (columns in record order), for assertions. */
public final class RecordStrings implements ChangeRecordDeserializer<String> {

    private static final long serialVersionUID = 1L;

    public static String render(ChangeRecord record) {
        String key =
                record.primaryKey().stream()
                        .map(pk -> pk.name() + "=" + pk.value())
                        .collect(Collectors.joining(","));
        String columns =
                record.columns().stream()
                        .map(
                                c ->
                                        c.operation() == ChangeRecord.ColumnOperation.PUT
                                                ? c.name() + "=" + c.value()
                                                : c.name() + "-")
                        .collect(Collectors.joining(" "));
        return (record.action() + " " + key + (columns.isEmpty() ? "" : " " + columns));
    }

    @Override
    public void deserialize(ChangeRecord record, Collector<String> out) {
        out.collect(render(record));
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }
}
