package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;

/**
 * A comparison of one primary-key column with a value, as an engine's filter states it ({@code n >=
 * 3}); {@link KeyBounds#derive} makes key bounds of them.
 *
 * @param column the primary-key column's name
 * @param op how the column compares with {@code value}
 * @param value a value of the column's type
 */
@Internal
public record KeyComparison(String column, Op op, PrimaryKeyValue value) {

    /** The comparisons a key range can serve. */
    public enum Op {
        EQUAL,
        LESS,
        LESS_OR_EQUAL,
        GREATER,
        GREATER_OR_EQUAL;

        /** The operator with its sides swapped: {@code 3 < n} is {@code n > 3}. */
        public Op flipped() {
            return switch (this) {
                case EQUAL -> EQUAL;
                case LESS -> GREATER;
                case LESS_OR_EQUAL -> GREATER_OR_EQUAL;
                case GREATER -> LESS;
                case GREATER_OR_EQUAL -> LESS_OR_EQUAL;
            };
        }
    }

    public KeyComparison {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(value, "value");
        if (value.isInfMin() || value.isInfMax()) {
            throw new IllegalArgumentException(
                    "A comparison is with a value, not INF_MIN / INF_MAX");
        }
    }
}
