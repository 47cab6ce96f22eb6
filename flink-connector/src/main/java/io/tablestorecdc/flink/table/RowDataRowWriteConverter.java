package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.PrimaryKeyColumn;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.CdcChange;
import io.tablestorecdc.checkpoint.write.RowKey;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.TablestoreWriteException;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.flink.sink.RowWriteConverter;
import io.tablestorecdc.flink.source.deserializer.CellTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * A SQL row of the sink table as a row change: INSERT and UPDATE_AFTER rows are written by the
 * write mode (or, when the table has an {@code _op} column, as the change of the {@code
 * tablestore-cdc} source it names), DELETE rows delete the key, UPDATE_BEFORE rows are dropped.
 */
@Internal
final class RowDataRowWriteConverter implements RowWriteConverter<RowData> {

    private static final long serialVersionUID = 1L;

    private final String[] names;
    private final LogicalTypeRoot[] types;
    private final int[] key;
    private final int[] attributes;
    private final WriteMode mode;
    private final int op;
    private final int columnOps;
    private final int seq;
    private final boolean seqIsRow;

    RowDataRowWriteConverter(RowType rowType, int[] primaryKey, WriteMode mode) {
        List<RowType.RowField> fields = rowType.getFields();
        this.names = fields.stream().map(RowType.RowField::getName).toArray(String[]::new);
        this.types = new LogicalTypeRoot[names.length];
        this.key = primaryKey.clone();
        this.mode = mode;
        this.op = indexOf(CdcChange.OP);
        this.columnOps = indexOf(CdcChange.COLUMN_OPS);
        this.seq = indexOf(CdcChange.SEQ);
        this.seqIsRow = seq >= 0 && fields.get(seq).getType().getTypeRoot() == LogicalTypeRoot.ROW;
        List<Integer> attrs = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            LogicalType type = fields.get(i).getType();
            types[i] = type.getTypeRoot();
            if (CdcChange.METADATA_COLUMNS.contains(names[i])) {
                checkMetadataType(names[i], type);
            } else {
                checkWritable(names[i], type);
                if (!isKey(i)) {
                    attrs.add(i);
                }
            }
        }
        this.attributes = attrs.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public Optional<RowWrite> convert(RowData row) {
        RowKey rowKey = rowKey(row);
        switch (row.getRowKind()) {
            case UPDATE_BEFORE:
                return Optional.empty();
            case DELETE:
                return Optional.of(RowWrite.delete(rowKey, sequence(row)));
            default:
                Map<String, CellValue> values = new LinkedHashMap<>();
                for (int i : attributes) {
                    values.put(names[i], value(row, i));
                }
                if (op < 0 || row.isNullAt(op)) {
                    return Optional.of(CdcChange.fromRow(mode, rowKey, values));
                }
                return Optional.of(
                        CdcChange.fromChange(
                                row.getString(op).toString(),
                                columnOps(row),
                                rowKey,
                                values,
                                sequence(row)));
        }
    }

    private RowKey rowKey(RowData row) {
        List<PrimaryKeyColumn> columns = new ArrayList<>(key.length);
        for (int i : key) {
            CellValue value = value(row, i);
            if (value == null) {
                throw new TablestoreWriteException(
                        "Primary-key column "
                                + names[i]
                                + " is null in a row of kind "
                                + row.getRowKind()
                                + ": Tablestore rows need every key column; filter such rows"
                                + " out or give the column a value");
            }
            columns.add(new PrimaryKeyColumn(names[i], value));
        }
        return new RowKey(columns);
    }

    private CellValue value(RowData row, int i) {
        if (row.isNullAt(i)) {
            return null;
        }
        return switch (types[i]) {
            case CHAR, VARCHAR -> {
                byte[] utf8 = row.getString(i).toBytes();
                yield CellValue.ofString(row.getString(i).toString(), utf8);
            }
            case BIGINT -> CellValue.ofInteger(row.getLong(i));
            case INTEGER -> CellValue.ofInteger(row.getInt(i));
            case SMALLINT -> CellValue.ofInteger(row.getShort(i));
            case TINYINT -> CellValue.ofInteger(row.getByte(i));
            case DOUBLE -> CellValue.ofDouble(row.getDouble(i));
            case FLOAT -> CellValue.ofDouble(row.getFloat(i));
            case BOOLEAN -> CellValue.ofBoolean(row.getBoolean(i));
            case BINARY, VARBINARY -> CellValue.ofBinary(row.getBinary(i));
            default -> throw new IllegalStateException("Unchecked type " + types[i]);
        };
    }

    private Map<String, String> columnOps(RowData row) {
        if (columnOps < 0 || row.isNullAt(columnOps)) {
            return null;
        }
        MapData map = row.getMap(columnOps);
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < map.size(); i++) {
            out.put(
                    keys.getString(i).toString(),
                    values.isNullAt(i) ? null : values.getString(i).toString());
        }
        return out;
    }

    private SequenceInfo sequence(RowData row) {
        if (seq < 0 || row.isNullAt(seq)) {
            return SequenceInfo.NONE;
        }
        if (seqIsRow) {
            RowData s = row.getRow(seq, 3);
            return new SequenceInfo(s.getInt(0), s.getLong(1), s.getInt(2));
        }
        String text = row.getString(seq).toString();
        String[] parts = text.split(":");
        try {
            return new SequenceInfo(
                    Integer.parseInt(parts[0]),
                    Long.parseLong(parts[1]),
                    Integer.parseInt(parts[2]));
        } catch (RuntimeException e) {
            throw new TablestoreWriteException(
                    "Column "
                            + CdcChange.SEQ
                            + " is '"
                            + text
                            + "'; expected epoch:timestampMicros:rowIndex as the tablestore-cdc"
                            + " source's seq metadata writes it");
        }
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

    /** The Tablestore type a column of {@code type} is written as, if any. */
    static Optional<CellValue.Type> cellType(LogicalType type) {
        return CellTypes.of(type);
    }

    private static void checkWritable(String name, LogicalType type) {
        if (cellType(type).isEmpty()) {
            throw new ValidationException(
                    "Column "
                            + name
                            + " has type "
                            + type.asSummaryString()
                            + ", which Tablestore cannot store: use STRING, BIGINT (or INT,"
                            + " SMALLINT, TINYINT), DOUBLE (or FLOAT), BOOLEAN or BYTES, e.g."
                            + " CAST the value in the query");
        }
    }

    private static void checkMetadataType(String name, LogicalType type) {
        LogicalTypeRoot root = type.getTypeRoot();
        boolean ok =
                switch (name) {
                    case CdcChange.OP, CdcChange.CHANNEL ->
                            root == LogicalTypeRoot.VARCHAR || root == LogicalTypeRoot.CHAR;
                    case CdcChange.COLUMN_OPS -> root == LogicalTypeRoot.MAP;
                    case CdcChange.SEQ ->
                            root == LogicalTypeRoot.VARCHAR
                                    || (root == LogicalTypeRoot.ROW
                                            && type.getChildren().size() == 3);
                    default -> true;
                };
        if (!ok) {
            throw new ValidationException(
                    "Column "
                            + name
                            + " has type "
                            + type.asSummaryString()
                            + ": as a column of the tablestore-cdc source's changes it must be "
                            + switch (name) {
                                case CdcChange.COLUMN_OPS -> "MAP<STRING, STRING>";
                                case CdcChange.SEQ ->
                                        "STRING (epoch:timestampMicros:rowIndex) or ROW<epoch INT,"
                                                + " `timestamp` BIGINT, row_index INT>";
                                default -> "STRING";
                            }
                            + "; rename the column if it is not");
        }
    }
}
