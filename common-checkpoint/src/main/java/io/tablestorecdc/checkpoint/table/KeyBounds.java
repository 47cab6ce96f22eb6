package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The primary-key range a bounded scan is limited to, from the filters an engine pushed down: an
 * equality on each of the first primary-key columns ({@code prefix}), then an optional lower and
 * upper bound on the next column. Like an index range, what follows the bounded column is not
 * restricted. {@link #restrict} cuts a table's split ranges to it, so a scan reads only the rows
 * that can match; the engine still applies its filters to the rows read.
 *
 * @param prefix the values of the first primary-key columns, in order
 * @param lower a lower bound on the column after the prefix
 * @param upper an upper bound on the column after the prefix
 */
@Internal
public record KeyBounds(
        List<PrimaryKeyValue> prefix, Optional<Bound> lower, Optional<Bound> upper) {

    /** One end of the bounded column's range. */
    public record Bound(PrimaryKeyValue value, boolean inclusive) {
        public Bound {
            Objects.requireNonNull(value, "value");
            if (value.isInfMin() || value.isInfMax()) {
                throw new IllegalArgumentException("A bound is a value, not INF_MIN / INF_MAX");
            }
        }
    }

    private static final KeyBounds ALL =
            new KeyBounds(List.of(), Optional.empty(), Optional.empty());

    public KeyBounds {
        prefix = List.copyOf(prefix);
        Objects.requireNonNull(lower, "lower");
        Objects.requireNonNull(upper, "upper");
    }

    /** No bound: the whole table. */
    public static KeyBounds all() {
        return ALL;
    }

    /**
     * The bounds a conjunction of comparisons implies, and the comparisons that shaped them: the
     * longest run of leading primary-key columns with an equality, then the closest lower and upper
     * bound on the next column. Comparisons on other columns, of another type than their column, or
     * after the first column without an equality are not used. The bounds never exclude a row the
     * conjunction accepts, so the engine applying all comparisons to the rows read gives the exact
     * answer.
     */
    public static Derived derive(List<PrimaryKeySchema> schema, List<KeyComparison> comparisons) {
        List<PrimaryKeyValue> prefix = new ArrayList<>();
        List<KeyComparison> used = new ArrayList<>();
        for (PrimaryKeySchema column : schema) {
            List<KeyComparison> on =
                    comparisons.stream()
                            .filter(c -> c.column().equals(column.getName()))
                            .filter(c -> c.value().getType() == column.getType())
                            .toList();
            Optional<KeyComparison> equal =
                    on.stream().filter(c -> c.op() == KeyComparison.Op.EQUAL).findFirst();
            if (equal.isPresent()) {
                // A second, different equality makes the conjunction empty; reading the rows of
                // the first is still a superset of none.
                prefix.add(equal.get().value());
                used.add(equal.get());
                continue;
            }
            Optional<KeyComparison> lower = closest(on, true);
            Optional<KeyComparison> upper = closest(on, false);
            lower.ifPresent(used::add);
            upper.ifPresent(used::add);
            return new Derived(
                    new KeyBounds(prefix, lower.map(KeyBounds::bound), upper.map(KeyBounds::bound)),
                    used);
        }
        return new Derived(new KeyBounds(prefix, Optional.empty(), Optional.empty()), used);
    }

    /** Bounds and the comparisons {@link #derive} made them of. */
    public record Derived(KeyBounds bounds, List<KeyComparison> used) {
        public Derived {
            Objects.requireNonNull(bounds, "bounds");
            used = List.copyOf(used);
        }
    }

    private static Optional<KeyComparison> closest(List<KeyComparison> on, boolean lower) {
        KeyComparison best = null;
        for (KeyComparison c : on) {
            boolean isLower =
                    c.op() == KeyComparison.Op.GREATER
                            || c.op() == KeyComparison.Op.GREATER_OR_EQUAL;
            boolean isUpper =
                    c.op() == KeyComparison.Op.LESS || c.op() == KeyComparison.Op.LESS_OR_EQUAL;
            if (lower ? !isLower : !isUpper) {
                continue;
            }
            if (best == null) {
                best = c;
                continue;
            }
            // Either bound alone admits every row the conjunction does, so an order that differs
            // from the service's for some values would cost reads, never rows.
            int order = c.value().compareTo(best.value());
            boolean tighter = lower ? order > 0 : order < 0;
            boolean sameButExclusive =
                    order == 0
                            && (c.op() == KeyComparison.Op.GREATER
                                    || c.op() == KeyComparison.Op.LESS);
            if (tighter || sameButExclusive) {
                best = c;
            }
        }
        return Optional.ofNullable(best);
    }

    private static Bound bound(KeyComparison c) {
        return new Bound(
                c.value(),
                c.op() == KeyComparison.Op.GREATER_OR_EQUAL
                        || c.op() == KeyComparison.Op.LESS_OR_EQUAL);
    }

    /** Whether this limits nothing. */
    public boolean isAll() {
        return prefix.isEmpty() && lower.isEmpty() && upper.isEmpty();
    }

    /**
     * The range of keys these bounds allow in a table of the given primary key.
     *
     * @throws IllegalArgumentException when the bounds name more columns than the key has, or a
     *     value of another type than its column's
     */
    public KeyRange range(List<PrimaryKeySchema> schema) {
        int bounded = prefix.size() + (lower.isPresent() || upper.isPresent() ? 1 : 0);
        if (bounded > schema.size()) {
            throw new IllegalArgumentException(
                    "Key bounds on "
                            + bounded
                            + " columns for a primary key of "
                            + schema.size()
                            + " columns");
        }
        for (int i = 0; i < prefix.size(); i++) {
            checkType(schema.get(i), prefix.get(i));
        }
        lower.ifPresent(b -> checkType(schema.get(prefix.size()), b.value()));
        upper.ifPresent(b -> checkType(schema.get(prefix.size()), b.value()));
        return new KeyRange(start(schema), end(schema));
    }

    /**
     * The parts of {@code splits} (ranges in key order that cover the table) inside these bounds:
     * each split cut to them, the splits that lie outside dropped. Deterministic: the same splits
     * and bounds give the same ranges.
     */
    public List<KeyRange> restrict(List<KeyRange> splits, List<PrimaryKeySchema> schema) {
        if (isAll()) {
            return List.copyOf(splits);
        }
        KeyRange allowed = range(schema);
        List<KeyRange> ranges = new ArrayList<>();
        for (KeyRange split : splits) {
            PrimaryKey start = max(split.inclusiveStart(), allowed.inclusiveStart());
            PrimaryKey end = min(split.exclusiveEnd(), allowed.exclusiveEnd());
            if (KeyOrder.INSTANCE.compare(start, end) < 0) {
                ranges.add(new KeyRange(start, end));
            }
        }
        return ranges;
    }

    /** For plans and logs: {@code id = 'a' AND seq >= 3}, or {@code all keys}. */
    public String describe(List<PrimaryKeySchema> schema) {
        if (isAll()) {
            return "all keys";
        }
        List<String> terms = new ArrayList<>();
        for (int i = 0; i < prefix.size(); i++) {
            terms.add(schema.get(i).getName() + " = " + text(prefix.get(i)));
        }
        String column = prefix.size() < schema.size() ? schema.get(prefix.size()).getName() : "?";
        lower.ifPresent(
                b -> terms.add(column + (b.inclusive() ? " >= " : " > ") + text(b.value())));
        upper.ifPresent(
                b -> terms.add(column + (b.inclusive() ? " <= " : " < ") + text(b.value())));
        return String.join(" AND ", terms);
    }

    private PrimaryKey start(List<PrimaryKeySchema> schema) {
        List<PrimaryKeyValue> values = new ArrayList<>(prefix);
        PrimaryKeyValue fill = PrimaryKeyValue.INF_MIN;
        if (lower.isPresent()) {
            Bound bound = lower.get();
            if (bound.inclusive()) {
                values.add(bound.value());
            } else if (values.size() + 1 < schema.size()) {
                // (v, INF_MAX, ...) lies after every key whose column is v.
                values.add(bound.value());
                fill = PrimaryKeyValue.INF_MAX;
            } else {
                values.add(successor(bound.value()));
            }
        }
        return key(schema, values, fill);
    }

    private PrimaryKey end(List<PrimaryKeySchema> schema) {
        List<PrimaryKeyValue> values = new ArrayList<>(prefix);
        PrimaryKeyValue fill = PrimaryKeyValue.INF_MAX;
        if (upper.isPresent()) {
            Bound bound = upper.get();
            if (!bound.inclusive()) {
                values.add(bound.value());
                fill = PrimaryKeyValue.INF_MIN;
            } else if (values.size() + 1 < schema.size()) {
                values.add(bound.value());
            } else {
                values.add(successor(bound.value()));
            }
        } else if (values.size() == schema.size()) {
            // A full-key equality: the range ends just after that one key.
            PrimaryKeyValue last = values.remove(values.size() - 1);
            values.add(successor(last));
        }
        return key(schema, values, fill);
    }

    /** The smallest value after {@code value} in the service's key order. */
    static PrimaryKeyValue successor(PrimaryKeyValue value) {
        return switch (value.getType()) {
            case INTEGER ->
                    value.asLong() == Long.MAX_VALUE
                            ? PrimaryKeyValue.INF_MAX
                            : PrimaryKeyValue.fromLong(value.asLong() + 1);
            case STRING -> PrimaryKeyValue.fromString(value.asString() + '\u0000');
            case BINARY -> {
                byte[] bytes = value.asBinary();
                yield PrimaryKeyValue.fromBinary(Arrays.copyOf(bytes, bytes.length + 1));
            }
            default -> throw new IllegalArgumentException("No successor of " + value);
        };
    }

    private static PrimaryKey key(
            List<PrimaryKeySchema> schema, List<PrimaryKeyValue> values, PrimaryKeyValue fill) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < schema.size(); i++) {
            key.addPrimaryKeyColumn(
                    new PrimaryKeyColumn(
                            schema.get(i).getName(), i < values.size() ? values.get(i) : fill));
        }
        return key.build();
    }

    private static void checkType(PrimaryKeySchema column, PrimaryKeyValue value) {
        PrimaryKeyType expected = column.getType();
        if (value.getType() != expected) {
            throw new IllegalArgumentException(
                    "A bound on primary-key column "
                            + column.getName()
                            + " has a "
                            + value.getType()
                            + " value; the column is "
                            + expected);
        }
    }

    private static PrimaryKey max(PrimaryKey a, PrimaryKey b) {
        return KeyOrder.INSTANCE.compare(a, b) >= 0 ? a : b;
    }

    private static PrimaryKey min(PrimaryKey a, PrimaryKey b) {
        return KeyOrder.INSTANCE.compare(a, b) <= 0 ? a : b;
    }

    private static String text(PrimaryKeyValue value) {
        return switch (value.getType()) {
            case STRING -> "'" + value.asString() + "'";
            case INTEGER -> Long.toString(value.asLong());
            default -> "<" + value.asBinary().length + " bytes>";
        };
    }
}
