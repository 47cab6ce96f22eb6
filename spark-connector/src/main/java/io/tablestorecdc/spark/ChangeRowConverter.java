package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
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

    // Every integer of at most this magnitude is exactly a double (53-bit mantissa).
    private static final long EXACT_DOUBLE_LIMIT = 1L << 53;

    private final OutputSchema schema;
    private final String tableName;
    private final boolean skipInvalid;
    private final boolean ignoreDelete;
    private final Map<String, Integer> attributeSlots = new HashMap<>();
    private final int attributeBase;
    private final int metadataBase;
    private long skippedInvalid;
    private long ignoredDeletes;

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
        this.metadataBase = attributeBase + (schema.valuesMap() ? 1 : attributes.size());
    }

    static ChangeRowConverter of(OutputSchema schema, TablestoreSourceOptions options) {
        return new ChangeRowConverter(
                schema, options.tableName(), options.skipInvalidData(), options.ignoreDelete());
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
        Object[] values = new Object[schema.sparkSchema().size()];
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
            CellValue value = primaryKeyValue(record, column.name());
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

    private CellValue primaryKeyValue(ChangeRecord record, String name) {
        for (ChangeRecord.PrimaryKeyColumn c : record.primaryKey()) {
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
        for (ColumnChange change : record.columns()) {
            Integer slot = attributeSlots.get(change.name());
            if (slot == null) {
                continue;
            }
            values[slot] =
                    change.operation() == ColumnOperation.PUT
                            ? fit(record, change, schema.sparkSchema().fields()[slot].dataType())
                            : null;
        }
    }

    private Object fit(ChangeRecord record, ColumnChange change, DataType type) {
        CellValue value = change.value();
        Optional<Object> converted = convertTo(value, type);
        if (converted.isEmpty()) {
            throw invalid(record, change.name(), value, type.simpleString());
        }
        return converted.get();
    }

    /** The Catalyst value of {@code value} as {@code type}, or empty if it does not fit. */
    static Optional<Object> convertTo(CellValue value, DataType type) {
        switch (value.type()) {
            case INTEGER:
                return integerAs(value.asInteger(), type);
            case DOUBLE:
                return type.equals(DataTypes.DoubleType)
                        ? Optional.of(value.asDouble())
                        : Optional.empty();
            case STRING:
                return type.equals(DataTypes.StringType)
                        ? Optional.of(UTF8String.fromString(value.asString()))
                        : Optional.empty();
            case BOOLEAN:
                return type.equals(DataTypes.BooleanType)
                        ? Optional.of(value.asBoolean())
                        : Optional.empty();
            case BINARY:
                return type.equals(DataTypes.BinaryType)
                        ? Optional.of(value.asBinary())
                        : Optional.empty();
            default:
                return Optional.empty();
        }
    }

    private static Optional<Object> integerAs(long v, DataType type) {
        if (type.equals(DataTypes.LongType)) {
            return Optional.of(v);
        }
        if (type.equals(DataTypes.IntegerType) && v == (int) v) {
            return Optional.of((int) v);
        }
        if (type.equals(DataTypes.ShortType) && v == (short) v) {
            return Optional.of((short) v);
        }
        if (type.equals(DataTypes.ByteType) && v == (byte) v) {
            return Optional.of((byte) v);
        }
        if (type.equals(DataTypes.DoubleType) && Math.abs(v) <= EXACT_DOUBLE_LIMIT) {
            return Optional.of((double) v);
        }
        return Optional.empty();
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
        return value.type() == CellValue.Type.BINARY
                ? Base64.getEncoder().encodeToString(value.asBinary())
                : String.valueOf(value.toJava());
    }

    private void fillMetadata(ChangeRecord record, Object[] values) {
        values[metadataBase] = UTF8String.fromString(record.action().name());
        values[metadataBase + 1] = commitTime(record);
        values[metadataBase + 2] = UTF8String.fromString(record.channelId());
        SequenceInfo seq = record.sequence();
        values[metadataBase + 3] =
                new GenericInternalRow(
                        new Object[] {seq.epoch(), seq.timestampMicros(), seq.rowIndex()});
        Map<String, String> ops = new LinkedHashMap<>();
        record.columns().forEach(c -> ops.put(c.name(), c.operation().name()));
        values[metadataBase + 4] = stringMap(ops);
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
        List<Object> keys = new ArrayList<>();
        List<Object> vals = new ArrayList<>();
        map.forEach(
                (k, v) -> {
                    keys.add(UTF8String.fromString(k));
                    vals.add(UTF8String.fromString(v));
                });
        return new ArrayBasedMapData(
                new GenericArrayData(keys.toArray()), new GenericArrayData(vals.toArray()));
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
