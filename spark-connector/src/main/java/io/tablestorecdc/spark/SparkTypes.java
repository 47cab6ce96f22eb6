package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Which Spark types a Tablestore cell maps to, declared once as data ({@link #MAPPINGS}): the one
 * rule of the {@code tablestore-cdc} source, the batch read and the {@code tablestore} sink. The
 * docs' type table is generated from it, and a test holds every converter to it.
 */
@Internal
public final class SparkTypes {

    /** When a reader takes a cell of a given type into a column. */
    enum Accepts {
        /** Every value. */
        ALWAYS,
        /** A value within the column type's range. */
        IN_RANGE,
        /** An integer a double holds exactly (at most 2^53 in magnitude). */
        EXACTLY
    }

    /**
     * One row of the mapping.
     *
     * @param type the Spark type
     * @param reads the cell types a reader takes into such a column, and when; empty when the type
     *     is only written
     * @param writes the cell type a sink writes such a column as
     * @param key whether a primary-key column may have the type
     * @param note what else a user needs to know; empty for nothing
     */
    record Mapping(
            DataType type,
            Map<CellValue.Type, Accepts> reads,
            CellValue.Type writes,
            boolean key,
            String note) {}

    /** The mapping, in the order the docs list it. */
    static final List<Mapping> MAPPINGS =
            List.of(
                    new Mapping(
                            DataTypes.StringType,
                            reads(CellValue.Type.STRING, Accepts.ALWAYS),
                            CellValue.Type.STRING,
                            true,
                            ""),
                    new Mapping(
                            DataTypes.LongType,
                            reads(CellValue.Type.INTEGER, Accepts.ALWAYS),
                            CellValue.Type.INTEGER,
                            true,
                            ""),
                    integer(DataTypes.IntegerType),
                    integer(DataTypes.ShortType),
                    integer(DataTypes.ByteType),
                    new Mapping(
                            DataTypes.DoubleType,
                            reads(
                                    CellValue.Type.DOUBLE,
                                    Accepts.ALWAYS,
                                    CellValue.Type.INTEGER,
                                    Accepts.EXACTLY),
                            CellValue.Type.DOUBLE,
                            false,
                            "A larger INTEGER does not fit: a double would not hold it exactly."),
                    new Mapping(
                            DataTypes.FloatType,
                            Map.of(),
                            CellValue.Type.DOUBLE,
                            false,
                            "Written only: stored as a DOUBLE, so read it back as `double`."),
                    new Mapping(
                            DataTypes.BooleanType,
                            reads(CellValue.Type.BOOLEAN, Accepts.ALWAYS),
                            CellValue.Type.BOOLEAN,
                            false,
                            ""),
                    new Mapping(
                            DataTypes.BinaryType,
                            reads(CellValue.Type.BINARY, Accepts.ALWAYS),
                            CellValue.Type.BINARY,
                            true,
                            ""));

    /** The types a reader can declare an attribute column with, in the mapping's order. */
    static final List<DataType> READABLE =
            MAPPINGS.stream().filter(m -> !m.reads().isEmpty()).map(Mapping::type).toList();

    private SparkTypes() {}

    /** The row of the mapping for {@code type}, if any. */
    static Optional<Mapping> mapping(DataType type) {
        return MAPPINGS.stream().filter(m -> m.type().equals(type)).findFirst();
    }

    /** Whether a primary-key column of {@code type} holds key values of {@code keyType}. */
    public static boolean keyFits(CellValue.Type keyType, DataType type) {
        return mapping(type).filter(m -> m.key() && m.writes() == keyType).isPresent();
    }

    private static Mapping integer(DataType type) {
        return new Mapping(
                type,
                reads(CellValue.Type.INTEGER, Accepts.IN_RANGE),
                CellValue.Type.INTEGER,
                true,
                "A value outside the type's range does not fit.");
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
}
