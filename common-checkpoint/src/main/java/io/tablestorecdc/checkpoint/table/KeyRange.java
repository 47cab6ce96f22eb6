package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * A range of a table's primary keys, as GetRange reads it.
 *
 * @param inclusiveStart the first key (columns may be INF_MIN / INF_MAX)
 * @param exclusiveEnd the key the range stops before
 */
@Internal
public record KeyRange(PrimaryKey inclusiveStart, PrimaryKey exclusiveEnd) {

    public KeyRange {
        Objects.requireNonNull(inclusiveStart, "inclusiveStart");
        Objects.requireNonNull(exclusiveEnd, "exclusiveEnd");
    }

    /**
     * What is left of this range after the row of key {@code read} (a full key of a row in it): the
     * range from the smallest key after {@code read}, or empty when no key of the range follows it.
     * A scan that resumes here reads each row once: none twice, none skipped.
     *
     * @throws IllegalArgumentException when {@code read} lies outside the range or holds INF_MIN /
     *     INF_MAX
     */
    public Optional<KeyRange> remainderAfter(PrimaryKey read) {
        if (read.compareTo(inclusiveStart) < 0 || read.compareTo(exclusiveEnd) >= 0) {
            throw new IllegalArgumentException("Key " + read + " lies outside the range " + this);
        }
        PrimaryKey next = next(read);
        return next.compareTo(exclusiveEnd) < 0
                ? Optional.of(new KeyRange(next, exclusiveEnd))
                : Optional.empty();
    }

    /** The smallest key after full key {@code key}: its last column's successor. */
    private static PrimaryKey next(PrimaryKey key) {
        PrimaryKeyColumn[] columns = key.getPrimaryKeyColumns();
        PrimaryKeyBuilder next = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < columns.length; i++) {
            PrimaryKeyColumn column = columns[i];
            if (column.getValue().isInfMin() || column.getValue().isInfMax()) {
                throw new IllegalArgumentException(
                        "Key "
                                + key
                                + " is not a row's key: column "
                                + column.getName()
                                + " is "
                                + column.getValue());
            }
            next.addPrimaryKeyColumn(
                    i < columns.length - 1
                            ? column
                            : new PrimaryKeyColumn(
                                    column.getName(), KeyBounds.successor(column.getValue())));
        }
        return next.build();
    }

    @Override
    public String toString() {
        return inclusiveStart + " .. " + exclusiveEnd;
    }
}
