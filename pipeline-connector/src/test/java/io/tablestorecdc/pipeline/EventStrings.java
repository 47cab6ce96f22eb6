package io.tablestorecdc.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.event.AddColumnEvent;
import org.apache.flink.cdc.common.event.AlterColumnTypeEvent;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.schema.Column;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.utils.SchemaUtils;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;

/**
 * Events as readable lines, rendered where they are emitted (chained to one reader, whose schema
 * announcements it follows): {@code create t (id STRING NOT NULL, v BIGINT)}, {@code add t price
 * DOUBLE}, {@code alter t v DOUBLE}, {@code insert t [a, 1]}, {@code update t [a, 1] -> [a, 2]},
 * {@code delete t [a, 1]}. Tables are named without the instance.
 */
final class EventStrings implements MapFunction<Event, String> {

    private static final long serialVersionUID = 1L;

    private transient Map<String, Schema> schemas;

    @Override
    public String map(Event event) {
        if (schemas == null) {
            schemas = new HashMap<>();
        }
        if (event instanceof SchemaChangeEvent change) {
            String table = change.tableId().getTableName();
            schemas.put(table, SchemaUtils.applySchemaChangeEvent(schemas.get(table), change));
            return render(change);
        }
        DataChangeEvent data = (DataChangeEvent) event;
        String table = data.tableId().getTableName();
        Schema schema = schemas.get(table);
        return switch (data.op()) {
            case INSERT -> "insert " + table + " " + values(schema, data.after());
            case UPDATE ->
                    "update "
                            + table
                            + " "
                            + values(schema, data.before())
                            + " -> "
                            + values(schema, data.after());
            case DELETE -> "delete " + table + " " + values(schema, data.before());
            default -> data.op() + " " + table;
        };
    }

    private static String render(SchemaChangeEvent change) {
        String table = change.tableId().getTableName();
        if (change instanceof CreateTableEvent create) {
            List<String> columns = new ArrayList<>();
            for (Column column : create.getSchema().getColumns()) {
                columns.add(column.getName() + " " + column.getType());
            }
            return "create " + table + " (" + String.join(", ", columns) + ")";
        }
        if (change instanceof AddColumnEvent add) {
            List<String> columns = new ArrayList<>();
            add.getAddedColumns()
                    .forEach(
                            c ->
                                    columns.add(
                                            c.getAddColumn().getName()
                                                    + " "
                                                    + c.getAddColumn().getType()));
            return "add " + table + " " + String.join(", ", columns);
        }
        if (change instanceof AlterColumnTypeEvent alter) {
            List<String> columns = new ArrayList<>();
            alter.getTypeMapping().forEach((name, type) -> columns.add(name + " " + type));
            return "alter " + table + " " + String.join(", ", columns);
        }
        return change.toString();
    }

    private static String values(Schema schema, RecordData row) {
        List<String> values = new ArrayList<>();
        List<RecordData.FieldGetter> getters = SchemaUtils.createFieldGetters(schema);
        for (RecordData.FieldGetter getter : getters) {
            Object value = getter.getFieldOrNull(row);
            values.add(value instanceof byte[] bytes ? "0x" + hex(bytes) : String.valueOf(value));
        }
        return values.toString();
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }

    /**
     * Collects the lines of one run under a name (the sink of a test job; run it at parallelism 1).
     */
    static final class Lines implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;
        private static final Map<String, List<String>> LINES = new ConcurrentHashMap<>();

        private final String name;

        Lines(String name) {
            this.name = name;
            LINES.putIfAbsent(name, new CopyOnWriteArrayList<>());
        }

        @Override
        public void invoke(String line, Context context) {
            LINES.get(name).add(line);
        }

        static List<String> of(String name) {
            return List.copyOf(LINES.getOrDefault(name, List.of()));
        }
    }
}
