package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Which Flink SQL types a Tablestore cell maps to: the one rule of the change-record source, the
 * lookup table and the sink.
 */
@Internal
public final class CellTypes {

    private CellTypes() {}

    /** The cell type a column of {@code type} holds, if Tablestore cells can hold it. */
    public static Optional<CellValue.Type> of(LogicalType type) {
        return switch (type.getTypeRoot()) {
            case CHAR, VARCHAR -> Optional.of(CellValue.Type.STRING);
            case BIGINT, INTEGER, SMALLINT, TINYINT -> Optional.of(CellValue.Type.INTEGER);
            case DOUBLE, FLOAT -> Optional.of(CellValue.Type.DOUBLE);
            case BOOLEAN -> Optional.of(CellValue.Type.BOOLEAN);
            case BINARY, VARBINARY -> Optional.of(CellValue.Type.BINARY);
            default -> Optional.empty();
        };
    }

    /** Fails, naming the field and the types to use, when cells cannot hold its type. */
    public static void requireSupported(RowType.RowField field) {
        if (of(field.getType()).isEmpty()) {
            throw new IllegalArgumentException(
                    "Field '"
                            + field.getName()
                            + "' has type "
                            + field.getType()
                            + ", which Tablestore cells cannot hold; use STRING, BIGINT, INT,"
                            + " SMALLINT, TINYINT, DOUBLE, FLOAT, BOOLEAN or BYTES");
        }
    }
}
