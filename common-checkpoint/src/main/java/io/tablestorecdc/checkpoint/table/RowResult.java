package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer for one key of a BatchGetRow: the row, no row, or the service's error for that key.
 *
 * @param row the row when it exists
 * @param error the service's error code and message when the key failed
 */
@Internal
public record RowResult(Optional<Row> row, Optional<ServiceError> error) {

    public RowResult {
        Objects.requireNonNull(row, "row");
        Objects.requireNonNull(error, "error");
        if (row.isPresent() && error.isPresent()) {
            throw new IllegalArgumentException("A row result holds a row or an error, not both");
        }
    }

    /** A key that was read: its row, or none. */
    public static RowResult read(Optional<Row> row) {
        return new RowResult(row, Optional.empty());
    }

    /** A key the service failed to read. */
    public static RowResult failed(ServiceError error) {
        return new RowResult(Optional.empty(), Optional.of(error));
    }
}
