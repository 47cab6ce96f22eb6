package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * Which Flink SQL types a Tablestore cell maps to, declared once as data ({@link #MAPPINGS}): the
 * one rule of the change-record source, the bounded scan, the lookup table and the sink. The docs'
 * type table is generated from it, and a test holds every converter to it.
 */
@Internal
public final class CellTypes {

    /** When a reader takes a cell of a given type into a column. */
    public enum Accepts {
        /** Every value. */
        ALWAYS,
        /** A value within the column type's range; any other is an invalid record. */
        IN_RANGE
    }

    /**
     * One row of the mapping: columns of {@code roots} read cells of the types in {@code reads} and
     * are written as {@code writes}.
     *
     * @param roots the Flink type roots the row covers
     * @param sqlTypes how the docs name those types
     * @param reads the cell types a reader takes into such a column, and when
     * @param writes the cell type the sink writes such a column as
     * @param key whether a primary-key column may have the type
     * @param note what else a user needs to know of the conversion; empty for nothing
     */
    public record Mapping(
            Set<LogicalTypeRoot> roots,
            String sqlTypes,
            Map<CellValue.Type, Accepts> reads,
            CellValue.Type writes,
            boolean key,
            String note) {}

    /** The mapping, in the order the docs list it. */
    public static final List<Mapping> MAPPINGS =
            List.of(
                    new Mapping(
                            EnumSet.of(LogicalTypeRoot.VARCHAR, LogicalTypeRoot.CHAR),
                            "`STRING`, `VARCHAR(n)`, `CHAR(n)`",
                            reads(CellValue.Type.STRING, Accepts.ALWAYS),
                            CellValue.Type.STRING,
                            true,
                            ""),
                    new Mapping(
                            EnumSet.of(LogicalTypeRoot.BIGINT),
                            "`BIGINT`",
                            reads(CellValue.Type.INTEGER, Accepts.ALWAYS),
                            CellValue.Type.INTEGER,
                            true,
                            ""),
                    new Mapping(
                            EnumSet.of(
                                    LogicalTypeRoot.INTEGER,
                                    LogicalTypeRoot.SMALLINT,
                                    LogicalTypeRoot.TINYINT),
                            "`INT`, `SMALLINT`, `TINYINT`",
                            reads(CellValue.Type.INTEGER, Accepts.IN_RANGE),
                            CellValue.Type.INTEGER,
                            true,
                            "A value outside the type's range is an invalid record."),
                    new Mapping(
                            EnumSet.of(LogicalTypeRoot.DOUBLE, LogicalTypeRoot.FLOAT),
                            "`DOUBLE`, `FLOAT`",
                            reads(
                                    CellValue.Type.DOUBLE,
                                    Accepts.ALWAYS,
                                    CellValue.Type.INTEGER,
                                    Accepts.ALWAYS),
                            CellValue.Type.DOUBLE,
                            false,
                            "An INTEGER is read as the nearest double. `FLOAT` rounds to the"
                                    + " nearest float, and is written as a DOUBLE."),
                    new Mapping(
                            EnumSet.of(LogicalTypeRoot.BOOLEAN),
                            "`BOOLEAN`",
                            reads(CellValue.Type.BOOLEAN, Accepts.ALWAYS),
                            CellValue.Type.BOOLEAN,
                            false,
                            ""),
                    new Mapping(
                            EnumSet.of(LogicalTypeRoot.VARBINARY, LogicalTypeRoot.BINARY),
                            "`BYTES`, `VARBINARY(n)`, `BINARY(n)`",
                            reads(CellValue.Type.BINARY, Accepts.ALWAYS),
                            CellValue.Type.BINARY,
                            true,
                            ""));

    private static final Map<LogicalTypeRoot, Mapping> BY_ROOT = byRoot();

    private CellTypes() {}

    /** The row of the mapping that covers {@code root}, if any. */
    public static Optional<Mapping> mapping(LogicalTypeRoot root) {
        return Optional.ofNullable(BY_ROOT.get(root));
    }

    /** The cell type a column of {@code type} holds, if Tablestore cells can hold it. */
    public static Optional<CellValue.Type> of(LogicalType type) {
        return mapping(type.getTypeRoot()).map(Mapping::writes);
    }

    /** Fails, naming the field and the types to use, when cells cannot hold its type. */
    public static void requireSupported(RowType.RowField field) {
        if (of(field.getType()).isEmpty()) {
            throw new IllegalArgumentException(
                    "Field '"
                            + field.getName()
                            + "' has type "
                            + field.getType()
                            + ", which Tablestore cells cannot hold; use "
                            + MAPPINGS.stream()
                                    .map(m -> m.sqlTypes().replace("`", ""))
                                    .collect(Collectors.joining(", ")));
        }
    }

    private static Map<CellValue.Type, Accepts> reads(CellValue.Type type, Accepts accepts) {
        return Map.of(type, accepts);
    }

    private static Map<CellValue.Type, Accepts> reads(
            CellValue.Type first, Accepts a, CellValue.Type second, Accepts b) {
        Map<CellValue.Type, Accepts> reads = new LinkedHashMap<>();
        reads.put(first, a);
        reads.put(second, b);
        return reads;
    }

    private static Map<LogicalTypeRoot, Mapping> byRoot() {
        Map<LogicalTypeRoot, Mapping> byRoot = new java.util.EnumMap<>(LogicalTypeRoot.class);
        for (Mapping mapping : MAPPINGS) {
            mapping.roots().forEach(root -> byRoot.put(root, mapping));
        }
        return byRoot;
    }
}
