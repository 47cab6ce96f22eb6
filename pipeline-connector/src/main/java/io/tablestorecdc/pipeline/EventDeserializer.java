package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.model.CellText;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.event.AddColumnEvent;
import org.apache.flink.cdc.common.event.AlterColumnTypeEvent;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Column;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;
import org.apache.flink.cdc.runtime.typeutils.EventTypeInfo;
import org.apache.flink.util.Collector;

/**
 * Turns the changes a reader reads into Flink CDC events. Each reader keeps the schema it announced
 * for each table, as Flink CDC's distributed schema handling expects of a source whose readers read
 * one table in parallel: before a reader's first change of a table since it started (also after a
 * restore, when the runtime's operators forget what each reader announced) a {@link
 * CreateTableEvent}; in {@link SchemaMode#EVOLVING}, before a change that carries a column the
 * reader's schema lacks an {@link AddColumnEvent}, and before one whose value needs a wider type an
 * {@link AlterColumnTypeEvent} ({@link ColumnTypes#widen}). The runtime merges the readers' schemas
 * into the sink's, so a schema announced again changes nothing downstream.
 *
 * <p>Changes: a PUT is an insert, or an update of the before-image when the stream has one (the row
 * existed); an UPDATE is an update, from the before-image with the change applied when the stream
 * has one (without, the columns it did not touch are null), or a delete when it leaves no
 * attribute; a DELETE is a delete of the before-image, or of the key. Every data event carries the
 * commit time in milliseconds in its meta, {@value #OP_TS} (0 for base data).
 */
final class EventDeserializer implements ChangeRecordDeserializer<Event> {

    private static final long serialVersionUID = 1L;

    /** The meta key of the commit time (milliseconds since the epoch), as Flink CDC's sources. */
    static final String OP_TS = "op_ts";

    private final String schemaName;
    private final String onlyTable;
    private final SchemaSettings settings;
    private final Map<String, TableColumns> initial;
    private transient Map<String, Announced> announced;

    /**
     * @param schemaName the schema of every table id (the instance name)
     * @param onlyTable the table of a change that names none (a source of one table)
     * @param initial each table's columns at start; a table found later starts with its key
     */
    EventDeserializer(
            String schemaName,
            String onlyTable,
            SchemaSettings settings,
            Map<String, TableColumns> initial) {
        this.schemaName = schemaName;
        this.onlyTable = onlyTable;
        this.settings = settings;
        this.initial = new HashMap<>(initial);
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        announced = new HashMap<>();
    }

    @Override
    public void deserialize(ChangeRecord record, Collector<Event> out)
            throws InvalidChangeRecordException {
        if (announced == null) {
            announced = new HashMap<>();
        }
        String table = record.table().isEmpty() ? onlyTable : record.table();
        TableId id = TableId.tableId(schemaName, table);
        Announced schema = announced.get(table);
        if (schema == null) {
            TableColumns columns = initial.get(table);
            if (columns == null) {
                columns = withKeyOf(record, settings.attributesOfNewTable(table));
            }
            out.collect(new CreateTableEvent(id, columns.schema()));
            schema = new Announced(columns);
            announced.put(table, schema);
        }
        if (settings.mode() == SchemaMode.EVOLVING) {
            schema = evolve(table, id, schema, record, out);
        }
        emitChange(table, id, schema, record, out);
    }

    /** A table found while running: the key its changes carry, then {@code attributes}. */
    private static TableColumns withKeyOf(ChangeRecord record, TableColumns attributes) {
        Map<String, CellValue.Type> key = new LinkedHashMap<>();
        record.primaryKey().forEach(pk -> key.put(pk.name(), pk.value().type()));
        return new TableColumns(key, attributes.attributes());
    }

    /** Announces the columns and wider types {@code record} needs; returns the schema after. */
    private Announced evolve(
            String table, TableId id, Announced schema, ChangeRecord record, Collector<Event> out) {
        TableColumns columns = schema.columns;
        List<AddColumnEvent.ColumnWithPosition> added = new ArrayList<>();
        Map<String, DataType> widened = new LinkedHashMap<>();
        Map<String, DataType> before = new LinkedHashMap<>();
        for (Map.Entry<String, CellValue> cell : attributeCells(record).entrySet()) {
            String name = cell.getKey();
            CellValue.Type type = cell.getValue().type();
            CellValue.Type known = columns.typeOf(name);
            if (known == null) {
                columns = columns.with(name, type);
                added.add(AddColumnEvent.last(Column.physicalColumn(name, ColumnTypes.of(type))));
            } else if (!columns.key().containsKey(name)
                    && ColumnTypes.widen(known, type) != known) {
                CellValue.Type wider = ColumnTypes.widen(known, type);
                columns = columns.with(name, wider);
                before.putIfAbsent(name, ColumnTypes.of(known));
                widened.put(name, ColumnTypes.of(wider));
            }
        }
        if (added.isEmpty() && widened.isEmpty()) {
            return schema;
        }
        if (!added.isEmpty()) {
            out.collect(new AddColumnEvent(id, added));
        }
        if (!widened.isEmpty()) {
            out.collect(new AlterColumnTypeEvent(id, widened, before));
        }
        Announced next = new Announced(columns);
        announced.put(table, next);
        return next;
    }

    /** Every attribute value the change carries (its puts, then its before-image's). */
    private static Map<String, CellValue> attributeCells(ChangeRecord record) {
        Map<String, CellValue> cells = new LinkedHashMap<>();
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                cells.put(column.name(), column.value());
            }
        }
        for (ChangeRecord.ColumnChange column : record.before()) {
            cells.putIfAbsent(column.name(), column.value());
        }
        for (ChangeRecord.PrimaryKeyColumn pk : record.primaryKey()) {
            cells.remove(pk.name());
        }
        return cells;
    }

    private void emitChange(
            String table, TableId id, Announced schema, ChangeRecord record, Collector<Event> out)
            throws InvalidChangeRecordException {
        Map<String, String> meta =
                Map.of(OP_TS, String.valueOf(record.sequence().timestampMicros() / 1000));
        boolean existed = !record.before().isEmpty();
        Map<String, CellValue> beforeImage = existed ? image(record.before()) : Map.of();
        switch (record.action()) {
            case PUT -> {
                RecordData after = schema.row(table, record, puts(record));
                out.collect(
                        existed
                                ? DataChangeEvent.updateEvent(
                                        id, schema.row(table, record, beforeImage), after, meta)
                                : DataChangeEvent.insertEvent(id, after, meta));
            }
            case UPDATE -> {
                if (!existed) {
                    out.collect(
                            DataChangeEvent.updateEvent(
                                    id,
                                    schema.row(table, record, Map.of()),
                                    schema.row(table, record, puts(record)),
                                    meta));
                    return;
                }
                Map<String, CellValue> after = new HashMap<>(beforeImage);
                for (ChangeRecord.ColumnChange column : record.columns()) {
                    if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                        after.put(column.name(), column.value());
                    } else {
                        after.remove(column.name());
                    }
                }
                RecordData old = schema.row(table, record, beforeImage);
                out.collect(
                        after.isEmpty()
                                ? DataChangeEvent.deleteEvent(id, old, meta)
                                : DataChangeEvent.updateEvent(
                                        id, old, schema.row(table, record, after), meta));
            }
            case DELETE ->
                    out.collect(
                            DataChangeEvent.deleteEvent(
                                    id, schema.row(table, record, beforeImage), meta));
        }
    }

    private static Map<String, CellValue> puts(ChangeRecord record) {
        Map<String, CellValue> cells = new HashMap<>();
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                cells.put(column.name(), column.value());
            }
        }
        return cells;
    }

    private static Map<String, CellValue> image(List<ChangeRecord.ColumnChange> columns) {
        Map<String, CellValue> cells = new HashMap<>();
        columns.forEach(c -> cells.put(c.name(), c.value()));
        return cells;
    }

    @Override
    public TypeInformation<Event> getProducedType() {
        return new EventTypeInfo();
    }

    /** The columns a reader announced for a table, and the writer of rows of those columns. */
    private static final class Announced {
        private final TableColumns columns;
        private final List<String> names;
        private final List<CellValue.Type> types;
        private final BinaryRecordDataGenerator rows;

        Announced(TableColumns columns) {
            this.columns = columns;
            this.names = columns.names();
            this.types = new ArrayList<>();
            names.forEach(name -> types.add(columns.typeOf(name)));
            this.rows =
                    new BinaryRecordDataGenerator(
                            columns.schema().getColumnDataTypes().toArray(new DataType[0]));
        }

        /**
         * The row of the change's key and {@code attributes} in these columns (a column the change
         * does not carry is null; a value the schema has no column for is not read).
         */
        RecordData row(String table, ChangeRecord record, Map<String, CellValue> attributes)
                throws InvalidChangeRecordException {
            Object[] values = new Object[names.size()];
            for (int i = 0; i < names.size(); i++) {
                CellValue cell = attributes.get(names.get(i));
                if (columns.key().containsKey(names.get(i))) {
                    cell = keyValue(record, names.get(i));
                }
                values[i] = cell == null ? null : convert(table, record, names.get(i), i, cell);
            }
            return rows.generate(values);
        }

        private static CellValue keyValue(ChangeRecord record, String name) {
            for (ChangeRecord.PrimaryKeyColumn pk : record.primaryKey()) {
                if (pk.name().equals(name)) {
                    return pk.value();
                }
            }
            return null;
        }

        /** The value as the column's type holds it: the same type, or a wider one. */
        private Object convert(
                String table, ChangeRecord record, String name, int column, CellValue cell)
                throws InvalidChangeRecordException {
            CellValue.Type type = types.get(column);
            if (cell.type() == type) {
                return switch (type) {
                    case STRING -> BinaryStringData.fromBytes(cell.utf8());
                    case INTEGER -> cell.asInteger();
                    case DOUBLE -> cell.asDouble();
                    case BOOLEAN -> cell.asBoolean();
                    case BINARY -> cell.asBinary();
                };
            }
            if (type == CellValue.Type.DOUBLE && cell.type() == CellValue.Type.INTEGER) {
                return (double) cell.asInteger();
            }
            if (type == CellValue.Type.STRING) {
                return BinaryStringData.fromBytes(CellText.utf8(cell));
            }
            throw new InvalidChangeRecordException(
                    "Column '"
                            + name
                            + "' of table '"
                            + table
                            + "', row "
                            + record.primaryKey()
                            + ", holds a "
                            + cell.type()
                            + " value, which its "
                            + type
                            + " column cannot hold: declare the column STRING (which holds any"
                            + " value as text), use schema.mode evolving (which widens it), or set"
                            + " skip.invalid.data = true to skip such changes");
        }
    }
}
