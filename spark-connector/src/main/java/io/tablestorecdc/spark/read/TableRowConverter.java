package io.tablestorecdc.spark.read;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.model.CellText;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.table.RowFields;
import io.tablestorecdc.checkpoint.table.TableCells;
import io.tablestorecdc.spark.CellRules;
import io.tablestorecdc.spark.OutputSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns rows GetRange read into Spark rows of a batch read's (pruned) schema, with the type rules
 * of the change-record source ({@link CellRules}): a column a row lacks is null; a value that does
 * not fit its declared column fails with the table, key and column named, never a silent null.
 */
final class TableRowConverter implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Object NO_FIT = new Object();

    private final String tableName;
    private final String[] names;
    private final DataType[] types;
    private final boolean[] key;
    private final boolean[] valuesMap;
    private final RowFields fields;

    TableRowConverter(StructType schema, Set<String> primaryKey, String tableName) {
        StructField[] fields = schema.fields();
        this.tableName = tableName;
        this.names = new String[fields.length];
        this.types = new DataType[fields.length];
        this.key = new boolean[fields.length];
        this.valuesMap = new boolean[fields.length];
        for (int i = 0; i < fields.length; i++) {
            names[i] = fields[i].name();
            types[i] = fields[i].dataType();
            key[i] = primaryKey.contains(names[i]);
            valuesMap[i] = !key[i] && names[i].equals(OutputSchema.VALUES);
        }
        this.fields = new RowFields(List.of(names));
    }

    /**
     * The columns GetRange should return: none named (all) when the {@value OutputSchema#VALUES}
     * map is read; otherwise the attribute columns read plus the primary-key columns, since the
     * service leaves out a row that holds none of the named columns.
     */
    static Set<String> columnsToGet(StructType schema, List<String> primaryKey) {
        List<String> columns = new ArrayList<>(primaryKey);
        for (StructField field : schema.fields()) {
            if (field.name().equals(OutputSchema.VALUES) && !primaryKey.contains(field.name())) {
                return Set.of();
            }
            if (!primaryKey.contains(field.name())) {
                columns.add(field.name());
            }
        }
        return Set.copyOf(columns);
    }

    InternalRow convert(Row row) {
        Object[] cells = fields.cells(row);
        Object[] values = new Object[names.length];
        for (int i = 0; i < names.length; i++) {
            if (valuesMap[i]) {
                values[i] = valuesMap(row);
            } else if (key[i]) {
                values[i] =
                        cells[i] instanceof PrimaryKeyValue value
                                ? as(row, names[i], TableCells.of(value), types[i])
                                : null;
            } else {
                values[i] =
                        cells[i] instanceof Column column
                                ? as(
                                        row,
                                        names[i],
                                        TableCells.of(names[i], column.getValue()),
                                        types[i])
                                : null;
            }
        }
        return new GenericInternalRow(values);
    }

    private Object as(Row row, String column, CellValue value, DataType type) {
        Object converted = CellRules.catalystAs(value, type, NO_FIT);
        if (converted == NO_FIT) {
            throw new IllegalStateException(
                    "Table '"
                            + tableName
                            + "', key "
                            + row.getPrimaryKey()
                            + ": column '"
                            + column
                            + "' holds "
                            + value.type()
                            + " value "
                            + abbreviate(value.toString())
                            + ", which does not fit its declared type "
                            + type.simpleString()
                            + ". Declare the column with a type that holds "
                            + value.type()
                            + " values in .schema(...) (see docs/tablestore-table.md), or read"
                            + " it through the "
                            + OutputSchema.VALUES
                            + " map.");
        }
        return converted;
    }

    private static ArrayBasedMapData valuesMap(Row row) {
        Column[] columns = row.getColumns();
        List<Object> keys = new ArrayList<>(columns.length);
        List<Object> values = new ArrayList<>(columns.length);
        String last = null;
        for (Column column : columns) {
            // Columns come sorted by name, newest version first: keep the newest.
            if (column.getName().equals(last)) {
                continue;
            }
            last = column.getName();
            keys.add(UTF8String.fromString(last));
            values.add(UTF8String.fromBytes(CellText.utf8(TableCells.of(last, column.getValue()))));
        }
        return new ArrayBasedMapData(
                new GenericArrayData(keys.toArray()), new GenericArrayData(values.toArray()));
    }

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }
}
