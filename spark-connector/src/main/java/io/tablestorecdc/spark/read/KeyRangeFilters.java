package io.tablestorecdc.spark.read;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import io.tablestorecdc.checkpoint.table.KeyOrder;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;

/**
 * Which of Spark's filters bound the primary-key range a batch read scans: equalities on the
 * leading primary-key columns, then comparisons on the next one, in the conjuncts of the filters
 * ({@code And} split). Every conjunct is a condition each matching row meets, so any subset of them
 * bounds the range correctly; Spark applies all filters to the rows read all the same.
 */
final class KeyRangeFilters {

    /**
     * @param bounds the range to scan
     * @param used the conjuncts the range was built from
     */
    record Pushed(KeyBounds bounds, List<Filter> used) {}

    private KeyRangeFilters() {}

    static Pushed translate(Filter[] filters, List<PrimaryKeyColumn> primaryKey) {
        List<Filter> conjuncts = new ArrayList<>();
        for (Filter filter : filters) {
            flatten(filter, conjuncts);
        }
        List<PrimaryKeyValue> prefix = new ArrayList<>();
        List<Filter> used = new ArrayList<>();
        Optional<Bound> lower = Optional.empty();
        Optional<Bound> upper = Optional.empty();
        Filter lowerFilter = null;
        Filter upperFilter = null;
        for (PrimaryKeyColumn column : primaryKey) {
            Optional<Filter> equality = equality(conjuncts, column);
            if (equality.isPresent()) {
                prefix.add(keyValue(value(equality.get()), column).orElseThrow());
                used.add(equality.get());
                continue;
            }
            for (Filter conjunct : conjuncts) {
                if (!on(conjunct, column)) {
                    continue;
                }
                Optional<PrimaryKeyValue> v = keyValue(value(conjunct), column);
                if (v.isEmpty()) {
                    continue;
                }
                if (conjunct instanceof GreaterThan || conjunct instanceof GreaterThanOrEqual) {
                    Bound b = new Bound(v.get(), conjunct instanceof GreaterThanOrEqual);
                    if (lower.isEmpty() || tighterLower(b, lower.get())) {
                        lower = Optional.of(b);
                        lowerFilter = conjunct;
                    }
                } else if (conjunct instanceof LessThan || conjunct instanceof LessThanOrEqual) {
                    Bound b = new Bound(v.get(), conjunct instanceof LessThanOrEqual);
                    if (upper.isEmpty() || tighterUpper(b, upper.get())) {
                        upper = Optional.of(b);
                        upperFilter = conjunct;
                    }
                }
            }
            break;
        }
        if (lowerFilter != null) {
            used.add(lowerFilter);
        }
        if (upperFilter != null) {
            used.add(upperFilter);
        }
        return new Pushed(new KeyBounds(prefix, lower, upper), used);
    }

    private static void flatten(Filter filter, List<Filter> out) {
        if (filter instanceof And and) {
            flatten(and.left(), out);
            flatten(and.right(), out);
        } else {
            out.add(filter);
        }
    }

    private static Optional<Filter> equality(List<Filter> conjuncts, PrimaryKeyColumn column) {
        for (Filter conjunct : conjuncts) {
            if ((conjunct instanceof EqualTo || conjunct instanceof EqualNullSafe)
                    && on(conjunct, column)
                    && keyValue(value(conjunct), column).isPresent()) {
                return Optional.of(conjunct);
            }
        }
        return Optional.empty();
    }

    private static boolean on(Filter conjunct, PrimaryKeyColumn column) {
        String attribute = attribute(conjunct);
        return attribute != null
                && (attribute.equals(column.name())
                        || attribute.equals("`" + column.name().replace("`", "``") + "`"));
    }

    private static String attribute(Filter f) {
        if (f instanceof EqualTo x) {
            return x.attribute();
        } else if (f instanceof EqualNullSafe x) {
            return x.attribute();
        } else if (f instanceof GreaterThan x) {
            return x.attribute();
        } else if (f instanceof GreaterThanOrEqual x) {
            return x.attribute();
        } else if (f instanceof LessThan x) {
            return x.attribute();
        } else if (f instanceof LessThanOrEqual x) {
            return x.attribute();
        }
        return null;
    }

    private static Object value(Filter f) {
        if (f instanceof EqualTo x) {
            return x.value();
        } else if (f instanceof EqualNullSafe x) {
            return x.value();
        } else if (f instanceof GreaterThan x) {
            return x.value();
        } else if (f instanceof GreaterThanOrEqual x) {
            return x.value();
        } else if (f instanceof LessThan x) {
            return x.value();
        }
        return ((LessThanOrEqual) f).value();
    }

    /** The filter's value as a key value of the column's type; empty when it is not one. */
    private static Optional<PrimaryKeyValue> keyValue(Object value, PrimaryKeyColumn column) {
        return switch (column.type()) {
            case STRING ->
                    value instanceof String s
                            ? Optional.of(PrimaryKeyValue.fromString(s))
                            : Optional.empty();
            case INTEGER ->
                    value instanceof Long
                                    || value instanceof Integer
                                    || value instanceof Short
                                    || value instanceof Byte
                            ? Optional.of(PrimaryKeyValue.fromLong(((Number) value).longValue()))
                            : Optional.empty();
            case BINARY ->
                    value instanceof byte[] b
                            ? Optional.of(PrimaryKeyValue.fromBinary(b))
                            : Optional.empty();
            default -> Optional.empty();
        };
    }

    private static boolean tighterLower(Bound candidate, Bound current) {
        int c = KeyOrder.compareValues(candidate.value(), current.value());
        return c > 0 || (c == 0 && !candidate.inclusive());
    }

    private static boolean tighterUpper(Bound candidate, Bound current) {
        int c = KeyOrder.compareValues(candidate.value(), current.value());
        return c < 0 || (c == 0 && !candidate.inclusive());
    }

    /** The filters as Spark prints them, for plans. */
    static String describe(List<Filter> filters) {
        List<String> parts = new ArrayList<>();
        filters.forEach(f -> parts.add(f.toString()));
        return "[" + String.join(", ", parts) + "]";
    }
}
