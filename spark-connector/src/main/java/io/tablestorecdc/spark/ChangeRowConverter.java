package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.CellText;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns change records into Spark rows of an {@link OutputSchema}.
 *
 * <p>A value that does not fit its declared column fails with the table, channel, key and column
 * named, or, with {@code skip.invalid.data=true}, drops the record and counts it: never a silent
 * null. With {@code ignore.delete=true} row deletions are dropped (and counted). Not thread-safe.
 */
final class ChangeRowConverter {

    private final OutputSchema schema;
    private final String tableName;
    private final boolean skipInvalid;
    private final boolean ignoreDelete;
    // convertTo's "does not fit" without an Optional per value (this runs for every cell).
    private static final Object NO_FIT = new Object();

    private final Map<String, Integer> attributeSlots = new HashMap<>();
    private final DataType[] slotTypes;
    private final int attributeBase;
    private final int tableSlot;
    private final int metadataBase;
    private final UTF8String tableUtf8;
    // The records of one channel mostly carry the same column names in the same order, decoded
    // afresh for every record: comparing them with the last record's names is cheaper than hashing
    // each one, and lets the slots and the names' UTF8Strings be reused.
    private ColumnLayout layout = ColumnLayout.EMPTY;
    private String lastChannelId = "";
    private UTF8String lastChannelUtf8 = UTF8String.fromString("");
    private long skippedInvalid;
    private long ignoredDeletes;
    // The common case, written straight into Spark's row format.
    private final UnsafeChangeRows direct;

    ChangeRowConverter(
            OutputSchema schema, String tableName, boolean skipInvalid, boolean ignoreDelete) {
        this.schema = schema;
        this.tableName = tableName;
        this.skipInvalid = skipInvalid;
        this.ignoreDelete = ignoreDelete;
        this.attributeBase = schema.primaryKey().size();
        List<StructField> attributes = schema.attributes();
        for (int i = 0; i < attributes.size(); i++) {
            attributeSlots.put(attributes.get(i).name(), attributeBase + i);
        }
        this.tableSlot = attributeBase + (schema.valuesMap() ? 1 : attributes.size());
        this.metadataBase = tableSlot + 1;
        this.tableUtf8 = UTF8String.fromString(tableName);
        StructField[] fields = schema.sparkSchema().fields();
        this.slotTypes = new DataType[fields.length];
        for (int i = 0; i < fields.length; i++) {
            slotTypes[i] = fields[i].dataType();
        }
        this.direct = new UnsafeChangeRows(schema, tableName, ignoreDelete);
    }

    static ChangeRowConverter of(OutputSchema schema, TablestoreSourceOptions options) {
        return new ChangeRowConverter(
                schema, options.tableName(), options.skipInvalidData(), options.ignoreDelete());
    }

    /**
     * The row for the reader's current record, or empty when the record is dropped (and counted).
     * The common case is written straight from the response into a reused {@code UnsafeRow};
     * anything else is converted through a {@link ChangeRecord}, with the same result.
     */
    Optional<InternalRow> convertCurrent(ChannelBatchReader reader) {
        InternalRow row = direct.write(reader);
        return row != null ? Optional.of(row) : convert(reader.current());
    }

    /** The row for {@code record}, or empty when the record is dropped (and counted). */
    Optional<InternalRow> convert(ChangeRecord record) {
        if (ignoreDelete && record.action() == ChangeRecord.Action.DELETE) {
            ignoredDeletes++;
            return Optional.empty();
        }
        try {
            return Optional.of(toRow(record));
        } catch (InvalidRecordException e) {
            if (!skipInvalid) {
                throw e;
            }
            skippedInvalid++;
            return Optional.empty();
        }
    }

    /** Records dropped because a value did not fit (only with skip.invalid.data=true). */
    long skippedInvalid() {
        return skippedInvalid;
    }

    /** Row deletions dropped (only with ignore.delete=true). */
    long ignoredDeletes() {
        return ignoredDeletes;
    }

    private InternalRow toRow(ChangeRecord record) {
        Object[] values = new Object[slotTypes.length];
        layout = layout.matching(record.columns(), attributeSlots);
        fillPrimaryKey(record, values);
        if (schema.valuesMap()) {
            values[attributeBase] = valuesMap(record);
        } else {
            fillAttributes(record, values);
        }
        fillMetadata(record, values);
        return new GenericInternalRow(values);
    }

    private void fillPrimaryKey(ChangeRecord record, Object[] values) {
        List<PrimaryKeyColumn> pk = schema.primaryKey();
        for (int i = 0; i < pk.size(); i++) {
            PrimaryKeyColumn column = pk.get(i);
            if (schema.optionalKey(column.name()) && !hasKeyColumn(record, column.name())) {
                values[i] = null; // a key column of another table of the source
                continue;
            }
            CellValue value = primaryKeyValue(record, i, column.name());
            if (value.type() != column.type()) {
                throw invalid(
                        record,
                        column.name(),
                        value,
                        column.type().name().toLowerCase(java.util.Locale.ROOT));
            }
            values[i] = catalystOf(value);
        }
    }

    private static boolean hasKeyColumn(ChangeRecord record, String name) {
        for (ChangeRecord.PrimaryKeyColumn c : record.primaryKey()) {
            if (c.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private CellValue primaryKeyValue(ChangeRecord record, int position, String name) {
        List<ChangeRecord.PrimaryKeyColumn> key = record.primaryKey();
        // The key comes in schema order: look at the expected position first.
        if (position < key.size() && key.get(position).name().equals(name)) {
            return key.get(position).value();
        }
        for (ChangeRecord.PrimaryKeyColumn c : key) {
            if (c.name().equals(name)) {
                return c.value();
            }
        }
        throw new InvalidRecordException(
                where(record, name)
                        + " is missing from the record's primary key "
                        + describeKey(record)
                        + ". The table's primary key changed since the query started: restart"
                        + " the query, or set "
                        + TablestoreSourceOptions.SKIP_INVALID_DATA
                        + "=true to skip such records.");
    }

    private void fillAttributes(ChangeRecord record, Object[] values) {
        List<ColumnChange> columns = record.columns();
        int[] slots = layout.slots;
        for (int i = 0; i < slots.length; i++) {
            int slot = slots[i];
            if (slot < 0) {
                continue;
            }
            ColumnChange change = columns.get(i);
            values[slot] =
                    change.operation() == ColumnOperation.PUT
                            ? fit(record, change, slotTypes[slot])
                            : null;
        }
    }

    private Object fit(ChangeRecord record, ColumnChange change, DataType type) {
        CellValue value = change.value();
        Object converted = catalystAs(value, type);
        if (converted == NO_FIT) {
            throw invalid(record, change.name(), value, type.simpleString());
        }
        return converted;
    }

    /** The Catalyst value of {@code value} as {@code type}, or empty if it does not fit. */
    static Optional<Object> convertTo(CellValue value, DataType type) {
        Object converted = catalystAs(value, type);
        return converted == NO_FIT ? Optional.empty() : Optional.of(converted);
    }

    private static Object catalystAs(CellValue value, DataType type) {
        return CellRules.catalystAs(value, type, NO_FIT);
    }

    private static Object catalystOf(CellValue value) {
        return switch (value.type()) {
            case STRING -> UTF8String.fromString(value.asString());
            case BINARY -> value.asBinary();
            default -> value.toJava();
        };
    }

    private static ArrayBasedMapData valuesMap(ChangeRecord record) {
        Map<String, String> map = new LinkedHashMap<>();
        for (ColumnChange change : record.columns()) {
            if (change.operation() == ColumnOperation.PUT) {
                map.put(change.name(), asText(change.value()));
            } else {
                map.remove(change.name());
            }
        }
        return stringMap(map);
    }

    /** The string form of a value in the {@value OutputSchema#VALUES} map. */
    static String asText(CellValue value) {
        return new String(CellText.utf8(value), StandardCharsets.UTF_8);
    }

    private void fillMetadata(ChangeRecord record, Object[] values) {
        values[tableSlot] = tableUtf8;
        values[metadataBase] = CellRules.ACTION_NAMES[record.action().ordinal()];
        values[metadataBase + 1] = commitTime(record);
        values[metadataBase + 2] = channelUtf8(record.channelId());
        SequenceInfo seq = record.sequence();
        values[metadataBase + 3] =
                new GenericInternalRow(
                        new Object[] {seq.epoch(), seq.timestampMicros(), seq.rowIndex()});
        values[metadataBase + 4] = columnOps(record.columns());
        if (schema.before()) {
            values[metadataBase + 5] = record.before().isEmpty() ? null : beforeMap(record);
        }
    }

    private static ArrayBasedMapData beforeMap(ChangeRecord record) {
        Map<String, String> map = new LinkedHashMap<>();
        record.before().forEach(c -> map.put(c.name(), asText(c.value())));
        return stringMap(map);
    }

    private UTF8String channelUtf8(String channelId) {
        if (channelId != lastChannelId && !channelId.equals(lastChannelId)) {
            lastChannelId = channelId;
            lastChannelUtf8 = UTF8String.fromString(channelId);
        }
        return lastChannelUtf8;
    }

    private ArrayBasedMapData columnOps(List<ColumnChange> columns) {
        if (!layout.distinct) {
            // A name repeated in one change: a map keeps its first position and last operation.
            Map<String, String> ops = new LinkedHashMap<>();
            columns.forEach(c -> ops.put(c.name(), c.operation().name()));
            return stringMap(ops);
        }
        Object[] keys = new Object[columns.size()];
        Object[] ops = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = layout.utf8Names[i];
            ops[i] = CellRules.OPERATION_NAMES[columns.get(i).operation().ordinal()];
        }
        return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(ops));
    }

    /**
     * A base-data record is a row of the table's snapshot, not a change: the server sends it
     * without sequence info, so it has no commit time and {@value OutputSchema#COMMIT_TS} is null
     * (docs/spark.md says so). Stream records always carry one.
     */
    private static Long commitTime(ChangeRecord record) {
        long micros = record.commitTimestampMicros();
        return micros == 0 ? null : micros;
    }

    private static ArrayBasedMapData stringMap(Map<String, String> map) {
        Object[] keys = new Object[map.size()];
        Object[] vals = new Object[keys.length];
        int i = 0;
        for (Map.Entry<String, String> e : map.entrySet()) {
            keys[i] = UTF8String.fromString(e.getKey());
            vals[i] = UTF8String.fromString(e.getValue());
            i++;
        }
        return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(vals));
    }

    /**
     * The column names of the last converted record, with each one's attribute slot (-1 when the
     * schema does not declare it) and UTF8String, and whether they are distinct.
     */
    private static final class ColumnLayout {
        static final ColumnLayout EMPTY =
                new ColumnLayout(new String[0], new int[0], new UTF8String[0], true);

        final String[] names;
        final int[] slots;
        final UTF8String[] utf8Names;
        final boolean distinct;

        private ColumnLayout(
                String[] names, int[] slots, UTF8String[] utf8Names, boolean distinct) {
            this.names = names;
            this.slots = slots;
            this.utf8Names = utf8Names;
            this.distinct = distinct;
        }

        /** This layout if {@code columns} have its names, else theirs. */
        ColumnLayout matching(List<ColumnChange> columns, Map<String, Integer> attributeSlots) {
            return sameNames(columns) ? this : of(columns, attributeSlots);
        }

        private boolean sameNames(List<ColumnChange> columns) {
            if (columns.size() != names.length) {
                return false;
            }
            for (int i = 0; i < names.length; i++) {
                String name = columns.get(i).name();
                if (name != names[i] && !name.equals(names[i])) {
                    return false;
                }
            }
            return true;
        }

        private static ColumnLayout of(
                List<ColumnChange> columns, Map<String, Integer> attributeSlots) {
            int n = columns.size();
            String[] names = new String[n];
            int[] slots = new int[n];
            UTF8String[] utf8Names = new UTF8String[n];
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < n; i++) {
                names[i] = columns.get(i).name();
                slots[i] = attributeSlots.getOrDefault(names[i], -1);
                utf8Names[i] = UTF8String.fromString(names[i]);
                seen.add(names[i]);
            }
            return new ColumnLayout(names, slots, utf8Names, seen.size() == n);
        }
    }

    private InvalidRecordException invalid(
            ChangeRecord record, String column, CellValue value, String declared) {
        return new InvalidRecordException(
                where(record, column)
                        + " holds "
                        + value.type()
                        + " value "
                        + abbreviate(value.toString())
                        + ", which does not fit its declared type "
                        + declared
                        + ". Declare the column with a type that holds "
                        + value.type()
                        + " values (see docs/spark.md), or set "
                        + TablestoreSourceOptions.SKIP_INVALID_DATA
                        + "=true to skip such records (counted in the skippedInvalidRecords"
                        + " metric).");
    }

    private String where(ChangeRecord record, String column) {
        return "Table '"
                + tableName
                + "', channel "
                + record.channelId()
                + ", key "
                + describeKey(record)
                + ": column '"
                + column
                + "'";
    }

    private static String describeKey(ChangeRecord record) {
        List<String> parts = new ArrayList<>();
        record.primaryKey()
                .forEach(c -> parts.add(c.name() + "=" + abbreviate(c.value().toString())));
        return "(" + String.join(", ", parts) + ")";
    }

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }

    /** A record whose value does not fit the output schema. */
    static final class InvalidRecordException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        InvalidRecordException(String message) {
            super(message);
        }
    }
}
