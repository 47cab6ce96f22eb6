package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import java.util.Objects;

/**
 * A range of a table's primary keys, as GetRange reads it.
 *
 * @param inclusiveStart the first key (columns may be INF_MIN / INF_MAX)
 * @param exclusiveEnd the key the range stops before
 */
public record KeyRange(PrimaryKey inclusiveStart, PrimaryKey exclusiveEnd) {

    public KeyRange {
        Objects.requireNonNull(inclusiveStart, "inclusiveStart");
        Objects.requireNonNull(exclusiveEnd, "exclusiveEnd");
    }
}
