package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Maps a change record to one {@link RowData} whose fields are taken by name from the primary key
 * and the attribute columns.
 *
 * <p>Row kinds: PUT → INSERT, UPDATE → UPDATE_AFTER, DELETE → DELETE. An UPDATE carries only the
 * columns it touched; the others are null in the row (a stateful upsert sink keyed by the primary
 * key applies exactly the touched columns only if it merges; see docs/flink.md). Supported types:
 * STRING/VARCHAR/CHAR (string cells), BIGINT/INT/SMALLINT/TINYINT (integer cells), DOUBLE/FLOAT
 * (double or integer cells), BOOLEAN, BYTES/VARBINARY/BINARY (binary cells). A field named {@value
 * ValuesField#NAME} of type {@code MAP<STRING, STRING>} holds every attribute column of the change,
 * its value as text, and each column the change deletes as NULL ({@link ValuesField}): rows of
 * tables with different columns fit one row type.
 */
@PublicEvolving
public final class RowDataChangeRecordDeserializer implements ChangeRecordDeserializer<RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final TypeInformation<RowData> producedType;
    private final int valuesField;
    private final boolean keepsDeletes;

    public RowDataChangeRecordDeserializer(RowType rowType, TypeInformation<RowData> producedType) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.producedType = Objects.requireNonNull(producedType, "producedType");
        int values = -1;
        boolean deletes = false;
        List<RowType.RowField> fields = rowType.getFields();
        for (int i = 0; i < fields.size(); i++) {
            if (ValuesField.is(fields.get(i))) {
                values = i;
                deletes = ValuesField.keepsDeletes(fields.get(i));
            } else {
                CellTypes.requireSupported(fields.get(i));
            }
        }
        this.valuesField = values;
        this.keepsDeletes = deletes;
    }

    @Override
    public void deserialize(ChangeRecord record, Collector<RowData> out)
            throws InvalidChangeRecordException {
        out.collect(toRowData(record));
    }

    /** Writes the same rows straight from the response, leaving what does not fit to this class. */
    @Override
    public Optional<ChangeWriter<RowData>> changeWriter() {
        return Optional.of(new RowDataChangeWriter(rowType, valuesField, keepsDeletes));
    }

    /** The row for one change; fields the change does not carry are null. */
    public RowData toRowData(ChangeRecord record) throws InvalidChangeRecordException {
        return row(record, kindOf(record.action()), cellsByName(record), true);
    }

    /**
     * The row as it was before the change, from the change's before-image ({@link
     * ChangeRecord#before()}) and key; fields the before-image does not hold are null.
     */
    public RowData beforeImage(ChangeRecord record, RowKind kind)
            throws InvalidChangeRecordException {
        return row(record, kind, before(record), false);
    }

    /**
     * The whole row after the change: a PUT's columns, or an UPDATE's applied to the before-image
     * (a column it deletes is null); for a DELETE, the key alone.
     */
    public RowData afterImage(ChangeRecord record, RowKind kind)
            throws InvalidChangeRecordException {
        return row(record, kind, after(record), false);
    }

    /** Whether the row holds an attribute column after the change (a row without one is gone). */
    public static boolean holdsAttributesAfter(ChangeRecord record) {
        return after(record).size() > record.primaryKey().size();
    }

    private static Map<String, CellValue> before(ChangeRecord record) {
        Map<String, CellValue> cells = new HashMap<>();
        record.before().forEach(c -> cells.put(c.name(), c.value()));
        record.primaryKey().forEach(pk -> cells.put(pk.name(), pk.value()));
        return cells;
    }

    private static Map<String, CellValue> after(ChangeRecord record) {
        switch (record.action()) {
            case PUT:
                return cellsByName(record);
            case DELETE:
                {
                    Map<String, CellValue> key = new HashMap<>();
                    record.primaryKey().forEach(pk -> key.put(pk.name(), pk.value()));
                    return key;
                }
            default:
                {
                    Map<String, CellValue> cells = before(record);
                    for (ChangeRecord.ColumnChange column : record.columns()) {
                        if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                            cells.put(column.name(), column.value());
                        } else {
                            cells.remove(column.name());
                        }
                    }
                    return cells;
                }
        }
    }

    /**
     * The row of {@code cells} (key and attribute columns by name); with {@code deletes}, the
     * change's own row, whose {@value ValuesField#NAME} map also names the columns it deletes.
     */
    private RowData row(
            ChangeRecord record, RowKind kind, Map<String, CellValue> cells, boolean deletes)
            throws InvalidChangeRecordException {
        List<RowType.RowField> fields = rowType.getFields();
        GenericRowData row = new GenericRowData(kind, fields.size());
        for (int i = 0; i < fields.size(); i++) {
            if (i == valuesField) {
                row.setField(i, values(record, cells, deletes));
                continue;
            }
            RowType.RowField field = fields.get(i);
            CellValue cell = cells.get(field.getName());
            if (cell == null && !field.getType().isNullable()) {
                throw new InvalidChangeRecordException(
                        "Change of row "
                                + record.primaryKey()
                                + " has no value for NOT NULL"
                                + " field '"
                                + field.getName()
                                + "'");
            }
            row.setField(i, cell == null ? null : convert(field, cell, record));
        }
        return row;
    }

    /**
     * The {@value ValuesField#NAME} map: the attribute cells as text, in the change's column order
     * for its own row; a deleted column as NULL unless the change also puts it.
     */
    private MapData values(ChangeRecord record, Map<String, CellValue> cells, boolean deletes) {
        Set<String> key = new HashSet<>();
        record.primaryKey().forEach(pk -> key.add(pk.name()));
        Map<StringData, StringData> texts = new LinkedHashMap<>();
        if (deletes) {
            for (ChangeRecord.ColumnChange column : record.columns()) {
                if (key.contains(column.name())) {
                    continue;
                }
                StringData name = StringData.fromString(column.name());
                if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                    texts.put(name, ValuesField.text(cells.get(column.name())));
                } else if (keepsDeletes) {
                    texts.putIfAbsent(name, null);
                }
            }
        } else {
            cells.forEach(
                    (name, value) -> {
                        if (!key.contains(name)) {
                            texts.put(StringData.fromString(name), ValuesField.text(value));
                        }
                    });
        }
        return ValuesField.of(texts);
    }

    private static Map<String, CellValue> cellsByName(ChangeRecord record) {
        Map<String, CellValue> cells = new HashMap<>();
        for (ChangeRecord.ColumnChange column : record.columns()) {
            if (column.operation() == ChangeRecord.ColumnOperation.PUT) {
                cells.put(column.name(), column.value());
            }
        }
        for (ChangeRecord.PrimaryKeyColumn pk : record.primaryKey()) {
            cells.put(pk.name(), pk.value());
        }
        return cells;
    }

    private static RowKind kindOf(ChangeRecord.Action action) {
        switch (action) {
            case UPDATE:
                return RowKind.UPDATE_AFTER;
            case DELETE:
                return RowKind.DELETE;
            default:
                return RowKind.INSERT;
        }
    }

    static Object convert(RowType.RowField field, CellValue cell, ChangeRecord record)
            throws InvalidChangeRecordException {
        LogicalType type = field.getType();
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return cell.type() == CellValue.Type.STRING
                        ? StringData.fromBytes(cell.utf8()) // the server's bytes, not re-encoded
                        : mismatch(field, cell, record);
            case BIGINT:
                return cell.type() == CellValue.Type.INTEGER
                        ? (Object) cell.asInteger()
                        : mismatch(field, cell, record);
            case INTEGER:
            case SMALLINT:
            case TINYINT:
                return narrowInteger(field, cell, record);
            case DOUBLE:
            case FLOAT:
                return floating(field, cell, record);
            case BOOLEAN:
                return cell.type() == CellValue.Type.BOOLEAN
                        ? (Object) cell.asBoolean()
                        : mismatch(field, cell, record);
            default:
                return cell.type() == CellValue.Type.BINARY
                        ? cell.asBinary()
                        : mismatch(field, cell, record);
        }
    }

    private static Object narrowInteger(RowType.RowField field, CellValue cell, ChangeRecord record)
            throws InvalidChangeRecordException {
        if (cell.type() != CellValue.Type.INTEGER) {
            return mismatch(field, cell, record);
        }
        long value = cell.asInteger();
        switch (field.getType().getTypeRoot()) {
            case TINYINT:
                return value == (byte) value
                        ? (Object) (byte) value
                        : mismatch(field, cell, record);
            case SMALLINT:
                return value == (short) value
                        ? (Object) (short) value
                        : mismatch(field, cell, record);
            default:
                return value == (int) value ? (Object) (int) value : mismatch(field, cell, record);
        }
    }

    private static Object floating(RowType.RowField field, CellValue cell, ChangeRecord record)
            throws InvalidChangeRecordException {
        double value;
        if (cell.type() == CellValue.Type.DOUBLE) {
            value = cell.asDouble();
        } else if (cell.type() == CellValue.Type.INTEGER) {
            value = cell.asInteger();
        } else {
            return mismatch(field, cell, record);
        }
        return field.getType().getTypeRoot()
                        == org.apache.flink.table.types.logical.LogicalTypeRoot.FLOAT
                ? (Object) (float) value
                : (Object) value;
    }

    private static Object mismatch(RowType.RowField field, CellValue cell, ChangeRecord record)
            throws InvalidChangeRecordException {
        throw new InvalidChangeRecordException(
                "Column '"
                        + field.getName()
                        + "' of row "
                        + record.primaryKey()
                        + " holds a "
                        + cell.type()
                        + " value that does not fit the declared type "
                        + field.getType()
                        + "; declare a matching type or set skip.invalid.data=true to skip such"
                        + " rows");
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
