package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.io.Serializable;
import java.util.Objects;

/**
 * One primary-key column of the source table, as DescribeTable reports it.
 *
 * @param name the column name
 * @param type STRING, INTEGER or BINARY
 */
@Internal
public record PrimaryKeyColumn(String name, CellValue.Type type) implements Serializable {

    private static final long serialVersionUID = 1L;

    public PrimaryKeyColumn {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }
}
