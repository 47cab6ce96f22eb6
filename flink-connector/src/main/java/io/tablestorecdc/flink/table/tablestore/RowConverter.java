package io.tablestorecdc.flink.table.tablestore;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.table.RowFields;
import io.tablestorecdc.flink.scan.TableRowConverter;
import io.tablestorecdc.flink.source.deserializer.CellTypes;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * Converts between Tablestore rows and Flink rows with the {@code tablestore-cdc} source's type
 * mapping: STRING to CHAR/VARCHAR, INTEGER to BIGINT/INT/SMALLINT/TINYINT, DOUBLE to DOUBLE/FLOAT,
 * BOOLEAN, BINARY to BINARY/VARBINARY. Columns a row lacks are null.
 */
@Internal
final class RowConverter implements TableRowConverter {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final RowFields fields;

    RowConverter(RowType rowType) {
        for (RowType.RowField field : rowType.getFields()) {
            CellTypes.requireSupported(field);
        }
        this.rowType = rowType;
        this.fields = new RowFields(rowType.getFieldNames());
    }

    @Override
    public RowData convert(Row row) {
        return toRowData(row);
    }

    RowData toRowData(Row row) {
        Object[] cells = fields.cells(row);
        List<RowType.RowField> declared = rowType.getFields();
        GenericRowData out = new GenericRowData(cells.length);
        for (int i = 0; i < cells.length; i++) {
            Object value;
            if (cells[i] instanceof PrimaryKeyValue key) {
                value = primaryKeyValue(key);
            } else if (cells[i] instanceof Column column) {
                value = columnValue(column.getValue());
            } else {
                continue;
            }
            out.setField(i, convert(declared.get(i), value, row));
        }
        return out;
    }

    /** The primary-key value of field {@code index} of {@code key}. */
    PrimaryKeyValue keyValue(RowData key, int position, int fieldIndex) {
        LogicalType type = rowType.getTypeAt(fieldIndex);
        if (key.isNullAt(position)) {
            throw new IllegalArgumentException(
                    "Primary-key column '" + rowType.getFieldNames().get(fieldIndex) + "' is null");
        }
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return PrimaryKeyValue.fromString(key.getString(position).toString());
            case BIGINT:
                return PrimaryKeyValue.fromLong(key.getLong(position));
            case INTEGER:
                return PrimaryKeyValue.fromLong(key.getInt(position));
            case SMALLINT:
                return PrimaryKeyValue.fromLong(key.getShort(position));
            case TINYINT:
                return PrimaryKeyValue.fromLong(key.getByte(position));
            case BINARY:
            case VARBINARY:
                return PrimaryKeyValue.fromBinary(key.getBinary(position));
            default:
                throw new IllegalArgumentException(
                        "Primary-key column '"
                                + rowType.getFieldNames().get(fieldIndex)
                                + "' has type "
                                + type
                                + "; Tablestore keys are STRING, INTEGER or BINARY");
        }
    }

    private static Object primaryKeyValue(PrimaryKeyValue value) {
        switch (value.getType()) {
            case STRING:
                return StringData.fromBytes(value.asStringInBytes());
            case INTEGER:
                return value.asLong();
            default:
                return value.asBinary();
        }
    }

    private static Object columnValue(ColumnValue value) {
        switch (value.getType()) {
            case STRING:
                return StringData.fromBytes(value.asStringInBytes());
            case INTEGER:
                return value.asLong();
            case DOUBLE:
                return value.asDouble();
            case BOOLEAN:
                return value.asBoolean();
            default:
                return value.asBinary();
        }
    }

    static Object convert(RowType.RowField field, Object value, Row row) {
        LogicalTypeRoot root = field.getType().getTypeRoot();
        switch (root) {
            case CHAR:
            case VARCHAR:
                if (value instanceof StringData) {
                    return value; // a cell's UTF-8 bytes, as read
                }
                return value instanceof String s ? StringData.fromString(s) : mismatch(field, row);
            case BIGINT:
                return value instanceof Long ? value : mismatch(field, row);
            case INTEGER:
            case SMALLINT:
            case TINYINT:
                return narrow(field, value, row);
            case DOUBLE:
            case FLOAT:
                double d;
                if (value instanceof Double x) {
                    d = x;
                } else if (value instanceof Long x) {
                    d = x;
                } else {
                    return mismatch(field, row);
                }
                return root == LogicalTypeRoot.FLOAT ? (Object) (float) d : (Object) d;
            case BOOLEAN:
                return value instanceof Boolean ? value : mismatch(field, row);
            default:
                return value instanceof byte[] ? value : mismatch(field, row);
        }
    }

    private static Object narrow(RowType.RowField field, Object value, Row row) {
        if (!(value instanceof Long)) {
            return mismatch(field, row);
        }
        long v = (Long) value;
        switch (field.getType().getTypeRoot()) {
            case TINYINT:
                return v == (byte) v ? (Object) (byte) v : mismatch(field, row);
            case SMALLINT:
                return v == (short) v ? (Object) (short) v : mismatch(field, row);
            default:
                return v == (int) v ? (Object) (int) v : mismatch(field, row);
        }
    }

    private static Object mismatch(RowType.RowField field, Row row) {
        throw new IllegalArgumentException(
                "Column '"
                        + field.getName()
                        + "' of row "
                        + row.getPrimaryKey()
                        + " holds a value that does not fit the declared type "
                        + field.getType());
    }
}
