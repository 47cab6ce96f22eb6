package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;

/**
 * The values of rows a {@link TableReader} read, as the connectors' {@link CellValue}s: the same
 * five types the change-record source reads, so that an engine converts a table row with the rules
 * it applies to change records.
 */
@Internal
public final class TableCells {

    private TableCells() {}

    /**
     * A primary-key value.
     *
     * @throws IllegalArgumentException for INF_MIN, INF_MAX or an auto-increment placeholder
     */
    public static CellValue of(PrimaryKeyValue value) {
        if (value.isInfMin() || value.isInfMax() || value.isPlaceHolderForAutoIncr()) {
            throw new IllegalArgumentException("A row's key holds the range marker " + value);
        }
        return switch (value.getType()) {
            case STRING -> CellValue.ofString(value.asString(), value.asStringInBytes());
            case INTEGER -> CellValue.ofInteger(value.asLong());
            case BINARY -> CellValue.ofBinary(value.asBinary());
        };
    }

    /**
     * An attribute value.
     *
     * @param column the column's name, for the message
     * @throws IllegalArgumentException for a type the connectors do not read (the date and time
     *     types), naming the column and the fix
     */
    public static CellValue of(String column, ColumnValue value) {
        return switch (value.getType()) {
            case STRING -> CellValue.ofString(value.asString(), value.asStringInBytes());
            case INTEGER -> CellValue.ofInteger(value.asLong());
            case DOUBLE -> CellValue.ofDouble(value.asDouble());
            case BOOLEAN -> CellValue.ofBoolean(value.asBoolean());
            case BINARY -> CellValue.ofBinary(value.asBinary());
            default ->
                    throw new IllegalArgumentException(
                            "Column "
                                    + column
                                    + " has type "
                                    + value.getType()
                                    + ", which the tablestore connectors do not read yet (they"
                                    + " read string, integer, double, boolean and binary"
                                    + " columns). Store the column in one of those types, or"
                                    + " leave it out of the schema.");
        };
    }
}
