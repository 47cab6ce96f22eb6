package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.util.Collection;
import java.util.List;

/**
 * The service's limits on names, keys, values and requests of the table API, each refused with the
 * service's error code and message (the service's "Limits on the Wide Column model" page, its error
 * code reference, and the SDK's functional tests {@code RestrictedItemTest} and {@code
 * ParameterLegalityTest}, which assert the service's answers).
 */
final class Limits {

    /** Table and column names: 1 to 255 bytes. */
    static final int MAX_NAME_BYTES = 255;

    /** Primary-key columns of a table. */
    static final int MAX_PRIMARY_KEY_COLUMNS = 4;

    /** A STRING or BINARY primary-key value, in bytes. */
    static final int MAX_PRIMARY_KEY_VALUE_BYTES = 1024;

    /** A STRING or BINARY attribute value (and a filter's value), in bytes: 2 MB. */
    static final int MAX_VALUE_BYTES = 2 * 1024 * 1024;

    /** Attribute cells one write may carry, and columns one read may name. */
    static final int MAX_COLUMNS_PER_REQUEST = 1024;

    /** Conditions (composite and single) in one filter or column condition. */
    static final int MAX_FILTERS = 32;

    /** A cell's timestamp (milliseconds) is below INT64_MAX / 1000. */
    static final long MAX_TIMESTAMP_EXCLUSIVE = Long.MAX_VALUE / 1000;

    /** Partitions a CreateTable may ask for. */
    static final int MAX_PARTITIONS = 10;

    private Limits() {}

    /**
     * Whether {@code name} is a valid table or column name: letters, digits and underscores,
     * starting with a letter or an underscore, 1 to 255 bytes.
     */
    static boolean validName(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_BYTES) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
            if (!letter && (i == 0 || c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    static void tableName(String name) throws EmulatorError {
        if (!validName(name)) {
            throw EmulatorError.parameterInvalid("Invalid table name: '" + name + "'.");
        }
    }

    static void columnName(String name) throws EmulatorError {
        if (!validName(name)) {
            throw EmulatorError.parameterInvalid("Invalid column name: '" + name + "'.");
        }
    }

    /**
     * An attribute column's name, as a write, a read or a filter names it: 1 to 255 bytes, not
     * starting with {@code #} (the prefix the service reserves). Other characters are taken
     * (spaces, punctuation, Chinese), as the service takes them (its SDK test {@code
     * ParameterLegalityTest}); table and primary-key column names follow {@link #validName}.
     */
    static void attributeName(String name) throws EmulatorError {
        int bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_NAME_BYTES || name.charAt(0) == '#') {
            throw EmulatorError.parameterInvalid("Invalid column name: '" + name + "'.");
        }
    }

    /** The number of primary-key columns of a new table. */
    static void primaryKeyCount(int columns) throws EmulatorError {
        if (columns < 1 || columns > MAX_PRIMARY_KEY_COLUMNS) {
            throw EmulatorError.parameterInvalid(
                    "The number of primary key columns must be in range: [1, "
                            + MAX_PRIMARY_KEY_COLUMNS
                            + "].");
        }
    }

    /**
     * A primary key as a request names it: 1 to 4 columns, their names and value sizes, and for the
     * key of a row ({@code rowKey}; not a range's bound) no INF_MIN / INF_MAX.
     */
    static void primaryKey(PrimaryKey key, boolean rowKey) throws EmulatorError {
        // Before the table is looked up, as the service checks (its SDK test RestrictedItemTest).
        primaryKeyCount(key.getPrimaryKeyColumns().length);
        for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
            columnName(column.getName());
            PrimaryKeyValue value = column.getValue();
            if (rowKey && (value.isInfMin() || value.isInfMax())) {
                throw EmulatorError.parameterInvalid(
                        TableStore.wireType(value) + " is an invalid type for the primary key.");
            }
            int bytes = primaryKeyValueBytes(column.getValue());
            if (bytes > MAX_PRIMARY_KEY_VALUE_BYTES) {
                throw EmulatorError.parameterInvalid(
                        "The length of primary key column: '"
                                + column.getName()
                                + "' exceeds the MaxLength:"
                                + MAX_PRIMARY_KEY_VALUE_BYTES
                                + " with CurrentLength:"
                                + bytes
                                + ".");
            }
        }
    }

    /** The cells of one write: their number, names, value sizes and timestamps. */
    static void cells(List<RecordColumn> cells) throws EmulatorError {
        for (RecordColumn cell : cells) {
            Column column = cell.getColumn();
            attributeName(column.getName());
            if (cell.getColumnType() == RecordColumn.ColumnType.PUT) {
                value(column.getName(), column.getValue());
            }
            if (column.hasSetTimestamp()
                    && (column.getTimestamp() < 0
                            || column.getTimestamp() >= MAX_TIMESTAMP_EXCLUSIVE)) {
                throw EmulatorError.parameterInvalid(
                        "Timestamp must be in range [0, INT64_MAX/1000).");
            }
        }
        if (cells.size() > MAX_COLUMNS_PER_REQUEST) {
            throw EmulatorError.parameterInvalid(
                    "The number of attribute columns exceeds the limit, limit count: "
                            + MAX_COLUMNS_PER_REQUEST
                            + ", column count: "
                            + cells.size()
                            + ".");
        }
    }

    /** An attribute value (of a cell or a filter) against the 2 MB limit. */
    static void value(String column, ColumnValue value) throws EmulatorError {
        int bytes;
        switch (value.getType()) {
            case STRING:
                bytes = value.asStringInBytes().length;
                break;
            case BINARY:
                bytes = value.asBinary().length;
                break;
            default:
                return;
        }
        if (bytes > MAX_VALUE_BYTES) {
            throw EmulatorError.parameterInvalid(
                    "The length of attribute column: '"
                            + column
                            + "' exceeds the MaxLength:"
                            + MAX_VALUE_BYTES
                            + " with CurrentLength:"
                            + bytes
                            + ".");
        }
    }

    /** The columns a read names ({@code columns_to_get}). */
    static void columnsToGet(Collection<String> columns) throws EmulatorError {
        for (String column : columns) {
            attributeName(column);
        }
        if (columns.size() > MAX_COLUMNS_PER_REQUEST) {
            throw EmulatorError.parameterInvalid(
                    "The number of columns from the request exceeds the limit, limit count: "
                            + MAX_COLUMNS_PER_REQUEST
                            + ", column count: "
                            + columns.size()
                            + ".");
        }
    }

    /** The number of conditions in one filter or column condition, counted as the tree is read. */
    static void filterCount(int filters) throws EmulatorError {
        if (filters > MAX_FILTERS) {
            throw EmulatorError.parameterInvalid(
                    "The count of filter exceeds the max: " + MAX_FILTERS + ".");
        }
    }

    /** The data one PutRow, UpdateRow or BatchWriteRow may carry: 4 MB. */
    static final int MAX_REQUEST_DATA_BYTES = 4 * 1024 * 1024;

    /**
     * The data size of a PutRow or UpdateRow ({@code action}) against the 4 MB the service's limits
     * page gives for one request, counted as for a BatchWriteRow and refused in the words of that
     * one's message (the service's error code reference gives the same form for all three).
     */
    static void requestSize(String action, PrimaryKey key, List<RecordColumn> cells)
            throws EmulatorError {
        long bytes = dataSize(key, cells);
        if (bytes > MAX_REQUEST_DATA_BYTES) {
            throw tooMuchData(action, bytes);
        }
    }

    static EmulatorError tooMuchData(String action, long bytes) {
        return EmulatorError.parameterInvalid(
                "The total data size of "
                        + action
                        + " request exceeds the limit, limit size: "
                        + MAX_REQUEST_DATA_BYTES
                        + ", data size: "
                        + bytes
                        + ".");
    }

    /**
     * A row change's data size as the service counts it against the BatchWriteRow limit: the sizes
     * {@link CapacityUnits} counts (names and values), plus 8 bytes of timestamp for each cell (the
     * sizes the SDK's {@code RestrictedItemTest} adds up for a request refused by one byte).
     */
    static long dataSize(PrimaryKey key, List<RecordColumn> cells) {
        long bytes = CapacityUnits.keyBytes(key);
        for (RecordColumn cell : cells) {
            bytes += CapacityUnits.cellBytes(cell) + Long.BYTES;
        }
        return bytes;
    }

    private static int primaryKeyValueBytes(PrimaryKeyValue value) {
        if (value.isInfMin() || value.isInfMax()) {
            return 0;
        }
        if (value.isPlaceHolderForAutoIncr()) {
            return Long.BYTES; // the INTEGER the server fills in
        }
        switch (value.getType()) {
            case STRING:
                return value.asStringInBytes().length;
            case BINARY:
                return value.asBinary().length;
            default:
                return Long.BYTES;
        }
    }
}
