package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** The events of single changes, in each schema mode. */
class EventDeserializerTest {

    private static final TableColumns ORDERS =
            new TableColumns(
                    Map.of("id", CellValue.Type.STRING),
                    linked("qty", CellValue.Type.INTEGER, "note", CellValue.Type.STRING));

    @Test
    void declaredAndSampledColumnsReadWhatTheyNameConvertingWhatWidensAndNothingElse()
            throws Exception {
        for (SchemaMode mode : List.of(SchemaMode.DECLARED, SchemaMode.SAMPLED)) {
            EventDeserializer deserializer = deserializer(mode);

            List<String> events =
                    events(
                            deserializer,
                            change(
                                    "orders",
                                    "k",
                                    put("qty", CellValue.ofInteger(1)),
                                    put("note", CellValue.ofInteger(5)),
                                    put("extra", CellValue.ofString("x"))));

            assertThat(events)
                    .as("%s", mode)
                    .containsExactly(
                            "create orders (id STRING NOT NULL, qty BIGINT, note STRING)",
                            "insert orders [k, 1, 5]");
        }
    }

    @Test
    void aValueAFixedColumnCannotHoldNamesTheColumnAndTheFixes() {
        EventDeserializer deserializer = deserializer(SchemaMode.DECLARED);

        assertThatThrownBy(
                        () ->
                                events(
                                        deserializer,
                                        change("orders", "k", put("qty", CellValue.ofString("x")))))
                .hasMessageContaining("Column 'qty' of table 'orders'")
                .hasMessageContaining("holds a STRING value, which its INTEGER column cannot hold")
                .hasMessageContaining("schema.mode evolving")
                .hasMessageContaining("skip.invalid.data");
    }

    @Test
    void aTableFoundWhileRunningIsAnnouncedWithTheKeyItsChangesCarryThenEvolves() throws Exception {
        EventDeserializer deserializer = deserializer(SchemaMode.EVOLVING);

        List<String> events =
                events(
                        deserializer,
                        change("fresh", "k", put("qty", CellValue.ofInteger(1))),
                        change("fresh", "m", put("qty", CellValue.ofString("many"))));

        assertThat(events)
                .containsExactly(
                        "create fresh (id STRING NOT NULL)",
                        "add fresh qty BIGINT",
                        "insert fresh [k, 1]",
                        "alter fresh qty STRING",
                        "insert fresh [m, many]");
    }

    @Test
    void everyDataEventCarriesItsCommitTimeInMilliseconds() throws Exception {
        EventDeserializer deserializer = deserializer(SchemaMode.EVOLVING);
        List<Event> out = new ArrayList<>();

        deserializer.deserialize(change("orders", "k"), collector(out));

        DataChangeEvent data = (DataChangeEvent) out.get(out.size() - 1);
        assertThat(data.meta()).containsEntry("op_ts", "1700000000000");
        assertThat(new OpTsMetadataColumn().read(data.meta())).isEqualTo(1_700_000_000_000L);
        assertThat(new OpTsMetadataColumn().read(Map.of())).isEqualTo(0L);
    }

    private static EventDeserializer deserializer(SchemaMode mode) {
        return new EventDeserializer(
                "inst", "", new SchemaSettings(mode, 10, Map.of()), Map.of("orders", ORDERS));
    }

    private static List<String> events(EventDeserializer deserializer, ChangeRecord... changes)
            throws Exception {
        List<Event> out = new ArrayList<>();
        for (ChangeRecord change : changes) {
            deserializer.deserialize(change, collector(out));
        }
        EventStrings strings = new EventStrings();
        List<String> lines = new ArrayList<>();
        for (Event event : out) {
            lines.add(strings.map(event));
        }
        return lines;
    }

    private static Collector<Event> collector(List<Event> out) {
        return new Collector<>() {
            @Override
            public void collect(Event event) {
                out.add(event);
            }

            @Override
            public void close() {}
        };
    }

    private static ChangeRecord change(String table, String key, ColumnChange... columns) {
        return new ChangeRecord(
                        ChangeRecord.Action.PUT,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString(key))),
                        List.of(columns),
                        new SequenceInfo(1, 1_700_000_000_000_000L, 0),
                        "ch")
                .withTable(table);
    }

    private static ColumnChange put(String name, CellValue value) {
        return new ColumnChange(name, ColumnOperation.PUT, value, 0);
    }

    private static LinkedHashMap<String, CellValue.Type> linked(
            String a, CellValue.Type aType, String b, CellValue.Type bType) {
        LinkedHashMap<String, CellValue.Type> columns = new LinkedHashMap<>();
        columns.put(a, aType);
        columns.put(b, bType);
        return columns;
    }
}
