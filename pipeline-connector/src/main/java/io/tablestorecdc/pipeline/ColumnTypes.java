package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.List;
import java.util.Locale;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.DataTypes;

/**
 * The one type rule of the pipeline source, declared as data ({@link #MAPPINGS}): which Flink CDC
 * type each Tablestore cell type is, the names {@code schema.columns.<table>} declares it with, and
 * how two types of one column widen (never dropping a value). The docs' type table is generated
 * from the mapping.
 *
 * <p>Widening: a type with itself stays; INTEGER with DOUBLE is DOUBLE (every integer of the stream
 * reads as a double); any other pair is STRING, whose values are the cells' text
 * (io.tablestorecdc.checkpoint.model.CellText: decimal, Java's double text, true/false, Base64).
 */
final class ColumnTypes {

    /**
     * One row of the mapping.
     *
     * @param cell the Tablestore cell type
     * @param type the Flink CDC type of a column of such cells
     * @param declared the names a declared column of the type may have, the first the usual one
     */
    record Mapping(CellValue.Type cell, DataType type, List<String> declared) {}

    /** The mapping, in the order the docs list it. */
    static final List<Mapping> MAPPINGS =
            List.of(
                    new Mapping(
                            CellValue.Type.STRING,
                            DataTypes.STRING(),
                            List.of("STRING", "VARCHAR")),
                    new Mapping(
                            CellValue.Type.INTEGER,
                            DataTypes.BIGINT(),
                            List.of("BIGINT", "INTEGER", "INT")),
                    new Mapping(CellValue.Type.DOUBLE, DataTypes.DOUBLE(), List.of("DOUBLE")),
                    new Mapping(CellValue.Type.BOOLEAN, DataTypes.BOOLEAN(), List.of("BOOLEAN")),
                    new Mapping(
                            CellValue.Type.BINARY,
                            DataTypes.BYTES(),
                            List.of("BYTES", "VARBINARY", "BINARY")));

    private ColumnTypes() {}

    /** The Flink CDC type of a column of cells of {@code type} (nullable). */
    static DataType of(CellValue.Type type) {
        return MAPPINGS.stream().filter(m -> m.cell() == type).findFirst().orElseThrow().type();
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
        String name = declared.trim().toUpperCase(Locale.ROOT);
        for (Mapping mapping : MAPPINGS) {
            if (mapping.declared().contains(name)) {
                return mapping.cell();
            }
        }
        throw new IllegalArgumentException(
                "Column '"
                        + column
                        + "' of '"
                        + PipelineOptions.SCHEMA_COLUMNS_PREFIX
                        + table
                        + "' has type '"
                        + declared.trim()
                        + "', which no Tablestore value has: use "
                        + usualNames());
    }

    /** {@code STRING, BIGINT, DOUBLE, BOOLEAN or BYTES}. */
    private static String usualNames() {
        List<String> names = MAPPINGS.stream().map(m -> m.declared().get(0)).toList();
        return String.join(", ", names.subList(0, names.size() - 1))
                + " or "
                + names.get(names.size() - 1);
    }
}
