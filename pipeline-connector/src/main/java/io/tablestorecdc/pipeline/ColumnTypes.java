package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.Locale;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.DataTypes;

/**
 * The one type rule of the pipeline source: which Flink CDC type each Tablestore cell type is, and
 * how two types of one column widen (never dropping a value).
 *
 * <table>
 *   <caption>Types</caption>
 *   <tr><th>Tablestore</th><th>Flink CDC</th></tr>
 *   <tr><td>STRING</td><td>STRING</td></tr>
 *   <tr><td>INTEGER</td><td>BIGINT</td></tr>
 *   <tr><td>DOUBLE</td><td>DOUBLE</td></tr>
 *   <tr><td>BOOLEAN</td><td>BOOLEAN</td></tr>
 *   <tr><td>BINARY</td><td>BYTES</td></tr>
 * </table>
 *
 * <p>Widening: a type with itself stays; INTEGER with DOUBLE is DOUBLE (every integer of the stream
 * reads as a double); any other pair is STRING, whose values are the cells' text
 * (io.tablestorecdc.checkpoint.model.CellText: decimal, Java's double text, true/false, Base64).
 */
final class ColumnTypes {

    private ColumnTypes() {}

    /** The Flink CDC type of a column of cells of {@code type} (nullable). */
    static DataType of(CellValue.Type type) {
        return switch (type) {
            case STRING -> DataTypes.STRING();
            case INTEGER -> DataTypes.BIGINT();
            case DOUBLE -> DataTypes.DOUBLE();
            case BOOLEAN -> DataTypes.BOOLEAN();
            case BINARY -> DataTypes.BYTES();
        };
    }

    /** The type a column holding values of {@code a} and of {@code b} has. */
    static CellValue.Type widen(CellValue.Type a, CellValue.Type b) {
        if (a == b) {
            return a;
        }
        if ((a == CellValue.Type.INTEGER && b == CellValue.Type.DOUBLE)
                || (a == CellValue.Type.DOUBLE && b == CellValue.Type.INTEGER)) {
            return CellValue.Type.DOUBLE;
        }
        return CellValue.Type.STRING;
    }

    /**
     * The cell type of a declared column type ({@code schema.columns.<table>}).
     *
     * @throws IllegalArgumentException naming the types there are
     */
    static CellValue.Type parse(String table, String column, String declared) {
        return switch (declared.trim().toUpperCase(Locale.ROOT)) {
            case "STRING", "VARCHAR" -> CellValue.Type.STRING;
            case "BIGINT", "INTEGER", "INT" -> CellValue.Type.INTEGER;
            case "DOUBLE" -> CellValue.Type.DOUBLE;
            case "BOOLEAN" -> CellValue.Type.BOOLEAN;
            case "BYTES", "VARBINARY", "BINARY" -> CellValue.Type.BINARY;
            default ->
                    throw new IllegalArgumentException(
                            "Column '"
                                    + column
                                    + "' of '"
                                    + PipelineOptions.SCHEMA_COLUMNS_PREFIX
                                    + table
                                    + "' has type '"
                                    + declared.trim()
                                    + "', which no Tablestore value has: use STRING, BIGINT,"
                                    + " DOUBLE, BOOLEAN or BYTES");
        };
    }
}
