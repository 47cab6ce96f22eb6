package io.tablestorecdc.spark.sink;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.CdcChange;
import io.tablestorecdc.checkpoint.write.RowKey;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.TableWriteClient.KeyColumn;
import io.tablestorecdc.checkpoint.write.TablestoreWriteException;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.spark.SparkTypes;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A DataFrame row as a row change: by the write mode, or, when the DataFrame has the {@code
 * tablestore-cdc} source's {@code _op} column, as the change it was ({@code _column_ops} telling
 * deleted columns from untouched ones, {@code _seq} ordering a key's changes). Built and checked on
 * the driver against the table's primary key; used on the executors.
 */
@Internal
public final class SparkRowWriteConverter implements Serializable {

    private static final long serialVersionUID = 1L;

    public enum Kind {
        STRING,
        LONG,
        INT,
        SHORT,
        BYTE,
        DOUBLE,
        FLOAT,
        BOOLEAN,
        BINARY
    }

    private final String[] names;
    private final Kind[] kinds;
    private final int[] key;
    private final int[] attributes;
    private final WriteMode mode;
    private final int op;
    private final int columnOps;
    private final int seq;

    /**
     * @throws IllegalArgumentException when the schema lacks a primary-key column, or a column's
     *     type cannot be written, naming the column and the fix
     */
    public SparkRowWriteConverter(
            StructType schema, List<KeyColumn> tableKey, WriteMode mode, String table) {
        StructField[] fields = schema.fields();
        this.names = new String[fields.length];
        this.kinds = new Kind[fields.length];
        this.mode = mode;
        for (int i = 0; i < fields.length; i++) {
            names[i] = fields[i].name();
        }
        this.key = keyIndexes(schema, tableKey, table);
        this.op = indexOf(CdcChange.OP);
        this.columnOps = indexOf(CdcChange.COLUMN_OPS);
        this.seq = indexOf(CdcChange.SEQ);
        checkMetadata(fields);
        List<Integer> attrs = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            if (CdcChange.METADATA_COLUMNS.contains(names[i])) {
                continue;
            }
            kinds[i] = kind(fields[i].name(), fields[i].dataType());
            if (!isKey(i)) {
                attrs.add(i);
            }
        }
        this.attributes = attrs.stream().mapToInt(Integer::intValue).toArray();
    }

    RowWrite convert(InternalRow row) {
        RowKey rowKey = rowKey(row);
        Map<String, CellValue> values = new LinkedHashMap<>();
        for (int i : attributes) {
            values.put(names[i], value(row, i));
        }
        if (op < 0 || row.isNullAt(op)) {
            return CdcChange.fromRow(mode, rowKey, values);
        }
        return CdcChange.fromChange(
                row.getUTF8String(op).toString(), columnOps(row), rowKey, values, sequence(row));
    }

    private int[] keyIndexes(StructType schema, List<KeyColumn> tableKey, String table) {
        int[] out = new int[tableKey.size()];
        for (int k = 0; k < tableKey.size(); k++) {
            KeyColumn column = tableKey.get(k);
            int i = indexOf(column.name());
            if (i < 0) {
                throw new IllegalArgumentException(
                        "The DataFrame has no column "
                                + column.name()
                                + ", a primary-key column of Tablestore table '"
                                + table
                                + "' (key "
                                + describe(tableKey)
                                + "): add it, e.g. with withColumn or a select that keeps it");
            }
            DataType type = schema.fields()[i].dataType();
            if (!keyTypeFits(column.type(), type)) {
                throw new IllegalArgumentException(
                        "Column "
                                + column.name()
                                + " is "
                                + type.simpleString()
                                + ", but it is a "
                                + column.type()
                                + " primary-key column of Tablestore table '"
                                + table
                                + "': cast it to "
                                + sparkType(column.type())
                                + " (e.g. col(\""
                                + column.name()
                                + "\").cast(\""
                                + sparkType(column.type())
                                + "\"))");
            }
            out[k] = i;
        }
        return out;
    }

    private static boolean keyTypeFits(CellValue.Type keyType, DataType type) {
        return SparkTypes.keyFits(keyType, type);
    }

    private static String sparkType(CellValue.Type keyType) {
        return switch (keyType) {
            case STRING -> "string";
            case INTEGER -> "bigint";
            default -> "binary";
        };
    }

    private static String describe(List<KeyColumn> key) {
        List<String> parts = new ArrayList<>();
        key.forEach(k -> parts.add(k.name() + " " + k.type()));
        return "(" + String.join(", ", parts) + ")";
    }

    public static Kind kind(String name, DataType type) {
        if (type.equals(DataTypes.StringType)) {
            return Kind.STRING;
        } else if (type.equals(DataTypes.LongType)) {
            return Kind.LONG;
        } else if (type.equals(DataTypes.IntegerType)) {
            return Kind.INT;
        } else if (type.equals(DataTypes.ShortType)) {
            return Kind.SHORT;
        } else if (type.equals(DataTypes.ByteType)) {
            return Kind.BYTE;
        } else if (type.equals(DataTypes.DoubleType)) {
            return Kind.DOUBLE;
        } else if (type.equals(DataTypes.FloatType)) {
            return Kind.FLOAT;
        } else if (type.equals(DataTypes.BooleanType)) {
            return Kind.BOOLEAN;
        } else if (type.equals(DataTypes.BinaryType)) {
            return Kind.BINARY;
        }
        String hint =
                name.equals("_values")
                        ? "; it is the tablestore-cdc source's schema-less map: read the source"
                                + " with .schema(...) declaring the attribute columns"
                        : "; cast it to string, bigint, double, boolean or binary, or drop it";
        throw new IllegalArgumentException(
                "Column "
                        + name
                        + " is "
                        + type.simpleString()
                        + ", which Tablestore cannot store"
                        + hint);
    }

    private void checkMetadata(StructField[] fields) {
        for (StructField f : fields) {
            DataType t = f.dataType();
            boolean ok =
                    switch (f.name()) {
                        case CdcChange.OP -> t.equals(DataTypes.StringType);
                        case CdcChange.COLUMN_OPS ->
                                t instanceof MapType m
                                        && m.keyType().equals(DataTypes.StringType)
                                        && m.valueType().equals(DataTypes.StringType);
                        case CdcChange.SEQ ->
                                t instanceof StructType s
                                        && s.fields().length == 3
                                        && s.fields()[0].dataType().equals(DataTypes.IntegerType)
                                        && s.fields()[1].dataType().equals(DataTypes.LongType)
                                        && s.fields()[2].dataType().equals(DataTypes.IntegerType);
                        default -> true;
                    };
            if (!ok) {
                throw new IllegalArgumentException(
                        "Column "
                                + f.name()
                                + " is "
                                + t.simpleString()
                                + ", but the tablestore-cdc source's "
                                + f.name()
                                + " is "
                                + switch (f.name()) {
                                    case CdcChange.OP -> "string";
                                    case CdcChange.COLUMN_OPS -> "map<string,string>";
                                    default -> "struct<epoch:int,timestamp:bigint,row_index:int>";
                                }
                                + ": rename the column if it is not the source's");
            }
        }
    }

    private RowKey rowKey(InternalRow row) {
        List<ChangeRecord.PrimaryKeyColumn> columns = new ArrayList<>(key.length);
        for (int i : key) {
            CellValue value = value(row, i);
            if (value == null) {
                throw new TablestoreWriteException(
                        "Primary-key column "
                                + names[i]
                                + " is null in a row: Tablestore rows need every key column;"
                                + " filter such rows out or give the column a value");
            }
            columns.add(new ChangeRecord.PrimaryKeyColumn(names[i], value));
        }
        return new RowKey(columns);
    }

    private CellValue value(InternalRow row, int i) {
        if (row.isNullAt(i)) {
            return null;
        }
        return switch (kinds[i]) {
            case STRING -> {
                var s = row.getUTF8String(i);
                yield CellValue.ofString(s.toString(), s.getBytes());
            }
            case LONG -> CellValue.ofInteger(row.getLong(i));
            case INT -> CellValue.ofInteger(row.getInt(i));
            case SHORT -> CellValue.ofInteger(row.getShort(i));
            case BYTE -> CellValue.ofInteger(row.getByte(i));
            case DOUBLE -> CellValue.ofDouble(row.getDouble(i));
            case FLOAT -> CellValue.ofDouble(row.getFloat(i));
            case BOOLEAN -> CellValue.ofBoolean(row.getBoolean(i));
            case BINARY -> CellValue.ofBinary(row.getBinary(i));
        };
    }

    private Map<String, String> columnOps(InternalRow row) {
        if (columnOps < 0 || row.isNullAt(columnOps)) {
            return null;
        }
        MapData map = row.getMap(columnOps);
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < map.numElements(); i++) {
            out.put(
                    keys.getUTF8String(i).toString(),
                    values.isNullAt(i) ? null : values.getUTF8String(i).toString());
        }
        return out;
    }

    private SequenceInfo sequence(InternalRow row) {
        if (seq < 0 || row.isNullAt(seq)) {
            return SequenceInfo.NONE;
        }
        InternalRow s = row.getStruct(seq, 3);
        return new SequenceInfo(s.getInt(0), s.getLong(1), s.getInt(2));
    }

    private boolean isKey(int field) {
        for (int k : key) {
            if (k == field) {
                return true;
            }
        }
        return false;
    }

    private int indexOf(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
