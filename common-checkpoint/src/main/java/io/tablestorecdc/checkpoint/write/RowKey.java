package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.PrimaryKeyColumn;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The primary key of one row, in the table's key order.
 *
 * @param columns the key columns, never empty
 */
@PublicEvolving
public record RowKey(List<PrimaryKeyColumn> columns) {

    public RowKey {
        columns = List.copyOf(columns);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("A row key needs at least one column");
        }
    }

    /** A one-column key. */
    public static RowKey of(String name, CellValue value) {
        return new RowKey(List.of(new PrimaryKeyColumn(name, value)));
    }

    /** A rough size of the key on the wire, for the request size limit. */
    long estimatedBytes() {
        long bytes = 0;
        for (PrimaryKeyColumn c : columns) {
            bytes += c.name().length() + RowWrite.valueBytes(c.value()) + 16;
        }
        return bytes;
    }

    /** {@code (id=5, name='a')}: how error messages name the row. */
    @Override
    public String toString() {
        return columns.stream()
                .map(c -> c.name() + "=" + c.value())
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
