package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns an engine's input row into a {@link RowWrite}: a plain row by the write mode, or a change
 * of the {@code tablestore-cdc} source (its {@code _op}, {@code _column_ops} and {@code _seq}
 * columns) as what it was.
 */
@PublicEvolving
public final class CdcChange {

    /** The source's metadata column names. */
    public static final String OP = "_op";

    public static final String COLUMN_OPS = "_column_ops";
    public static final String SEQ = "_seq";
    public static final String COMMIT_TS = "_commit_ts";
    public static final String CHANNEL = "_channel";
    public static final String TABLE = "_table";

    /** Metadata columns of the source that are never written as attributes. */
    public static final Set<String> METADATA_COLUMNS =
            Set.of(OP, COLUMN_OPS, SEQ, COMMIT_TS, CHANNEL, TABLE);

    private CdcChange() {}

    /**
     * A plain row: in {@code put} mode the row of its non-null values, in {@code update} mode its
     * non-null values set and its null ones deleted.
     *
     * @param values attribute values by column; a {@code null} value is a null column
     */
    public static RowWrite fromRow(WriteMode mode, RowKey key, Map<String, CellValue> values) {
        Map<String, CellValue> puts = new LinkedHashMap<>();
        Set<String> nulls = new HashSet<>();
        values.forEach(
                (name, value) -> {
                    if (value == null) {
                        nulls.add(name);
                    } else {
                        puts.put(name, value);
                    }
                });
        return mode == WriteMode.PUT
                ? RowWrite.put(key, puts, SequenceInfo.NONE)
                : RowWrite.update(key, puts, nulls, SequenceInfo.NONE);
    }

    /**
     * A change of the source.
     *
     * @param op the {@code _op} value: {@code PUT}, {@code UPDATE} or {@code DELETE}
     * @param columnOps the {@code _column_ops} value; {@code null} when the input has no such
     *     column, then an UPDATE sets its non-null values and leaves its null ones alone
     * @param values attribute values by column; {@code null} for a null column
     * @param sequence the {@code _seq} value, {@link SequenceInfo#NONE} when absent
     * @throws TablestoreWriteException for an unknown {@code _op} or column operation
     */
    public static RowWrite fromChange(
            String op,
            Map<String, String> columnOps,
            RowKey key,
            Map<String, CellValue> values,
            SequenceInfo sequence) {
        switch (action(op, key)) {
            case DELETE:
                return RowWrite.delete(key, sequence);
            case PUT:
                return RowWrite.put(key, nonNull(values), sequence);
            default:
                return update(columnOps, key, values, sequence);
        }
    }

    /** A change record as the core reads it from a tunnel, applied as what it was. */
    public static RowWrite fromRecord(ChangeRecord record) {
        RowKey key = new RowKey(record.primaryKey());
        switch (record.action()) {
            case DELETE:
                return RowWrite.delete(key, record.sequence());
            case PUT:
                Map<String, CellValue> columns = new LinkedHashMap<>();
                record.columns().forEach(c -> columns.put(c.name(), c.value()));
                return RowWrite.put(key, columns, record.sequence());
            default:
                Map<String, CellValue> puts = new LinkedHashMap<>();
                Set<String> deletes = new HashSet<>();
                for (ChangeRecord.ColumnChange c : record.columns()) {
                    if (c.operation() == ChangeRecord.ColumnOperation.PUT) {
                        puts.put(c.name(), c.value());
                        deletes.remove(c.name());
                    } else {
                        deletes.add(c.name());
                        puts.remove(c.name());
                    }
                }
                return RowWrite.update(key, puts, deletes, record.sequence());
        }
    }

    private static RowWrite update(
            Map<String, String> columnOps,
            RowKey key,
            Map<String, CellValue> values,
            SequenceInfo sequence) {
        if (columnOps == null) {
            return RowWrite.update(key, nonNull(values), Set.of(), sequence);
        }
        Map<String, CellValue> puts = new LinkedHashMap<>();
        Set<String> deletes = new HashSet<>();
        for (Map.Entry<String, String> e : columnOps.entrySet()) {
            String column = e.getKey();
            if (!values.containsKey(column)) {
                continue; // a column the input does not carry is not written
            }
            String operation = e.getValue() == null ? "" : e.getValue();
            switch (operation) {
                case "PUT" -> {
                    CellValue value = values.get(column);
                    if (value == null) {
                        deletes.add(column);
                    } else {
                        puts.put(column, value);
                    }
                }
                case "DELETE_ONE_VERSION", "DELETE_ALL_VERSION" -> deletes.add(column);
                default ->
                        throw new TablestoreWriteException(
                                "Row "
                                        + key
                                        + ": column "
                                        + COLUMN_OPS
                                        + " gives column "
                                        + column
                                        + " the operation '"
                                        + operation
                                        + "'; expected PUT, DELETE_ONE_VERSION or"
                                        + " DELETE_ALL_VERSION as the tablestore-cdc source"
                                        + " writes them");
            }
        }
        return RowWrite.update(key, puts, deletes, sequence);
    }

    private static RowWrite.Kind action(String op, RowKey key) {
        String text = op == null ? "" : op.trim().toUpperCase(Locale.ROOT);
        return switch (text) {
            case "PUT" -> RowWrite.Kind.PUT;
            case "UPDATE" -> RowWrite.Kind.UPDATE;
            case "DELETE" -> RowWrite.Kind.DELETE;
            default ->
                    throw new TablestoreWriteException(
                            "Row "
                                    + key
                                    + ": column "
                                    + OP
                                    + " is '"
                                    + op
                                    + "'; expected PUT, UPDATE or DELETE as the tablestore-cdc"
                                    + " source writes it (drop the column to write rows by the"
                                    + " write mode instead)");
        };
    }

    private static Map<String, CellValue> nonNull(Map<String, CellValue> values) {
        Map<String, CellValue> out = new LinkedHashMap<>();
        values.forEach(
                (name, value) -> {
                    if (value != null) {
                        out.put(name, value);
                    }
                });
        return out;
    }
}
