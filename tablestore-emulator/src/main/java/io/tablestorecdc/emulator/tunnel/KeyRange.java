package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A half-open primary-key range {@code [start, end)}; an empty start is −∞ and an empty end is +∞.
 * Keys compare column by column with INF_MIN / INF_MAX as the smallest / largest values and a
 * shorter key before any longer key it is a prefix of.
 *
 * @param start the inclusive lower bound, empty for −∞
 * @param end the exclusive upper bound, empty for +∞
 */
public record KeyRange(Optional<PrimaryKey> start, Optional<PrimaryKey> end) {

    /** Orders primary keys as Tablestore does, column by column. */
    public static final Comparator<PrimaryKey> KEY_ORDER = KeyRange::compareKeys;

    public KeyRange {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        if (start.isPresent() && end.isPresent() && compareKeys(start.get(), end.get()) >= 0) {
            throw new IllegalArgumentException(
                    "Empty key range ["
                            + start.get()
                            + ", "
                            + end.get()
                            + "): start must be below end");
        }
    }

    /** The whole key space, the range a table's first partition covers. */
    public static KeyRange all() {
        return new KeyRange(Optional.empty(), Optional.empty());
    }

    public boolean contains(PrimaryKey key) {
        boolean aboveStart = start.map(s -> compareKeys(s, key) <= 0).orElse(true);
        boolean belowEnd = end.map(e -> compareKeys(key, e) < 0).orElse(true);
        return aboveStart && belowEnd;
    }

    /** The range's intersection with another, empty when they do not overlap. */
    public Optional<KeyRange> intersect(KeyRange other) {
        Optional<PrimaryKey> lo = maxStart(start, other.start);
        Optional<PrimaryKey> hi = minEnd(end, other.end);
        if (lo.isPresent() && hi.isPresent() && compareKeys(lo.get(), hi.get()) >= 0) {
            return Optional.empty();
        }
        return Optional.of(new KeyRange(lo, hi));
    }

    /**
     * True when the parents' ranges, cut to the child's range, tile the child exactly: none of the
     * intersections is empty and, sorted by start, the first starts at the child's start, each ends
     * where the next starts (no gap, no overlap, no duplicate) and the last ends at the child's
     * end. One parent that covers the child (a split) tiles it.
     */
    public static boolean tiles(List<KeyRange> parents, KeyRange child) {
        if (parents.isEmpty()) {
            return false;
        }
        List<KeyRange> cuts = new ArrayList<>();
        for (KeyRange parent : parents) {
            Optional<KeyRange> cut = parent.intersect(child);
            if (cut.isEmpty()) {
                return false;
            }
            cuts.add(cut.get());
        }
        cuts.sort((a, b) -> compareStarts(a.start, b.start));
        if (compareStarts(cuts.get(0).start, child.start) != 0) {
            return false;
        }
        for (int i = 0; i + 1 < cuts.size(); i++) {
            if (!boundaryMeets(cuts.get(i).end, cuts.get(i + 1).start)) {
                return false;
            }
        }
        return compareEnds(cuts.get(cuts.size() - 1).end, child.end) == 0;
    }

    /** Compares two keys column by column; INF_MIN / INF_MAX sort below / above every value. */
    public static int compareKeys(PrimaryKey a, PrimaryKey b) {
        PrimaryKeyColumn[] left = a.getPrimaryKeyColumns();
        PrimaryKeyColumn[] right = b.getPrimaryKeyColumns();
        for (int i = 0; i < Math.min(left.length, right.length); i++) {
            int c = compareValues(left[i].getValue(), right[i].getValue());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(left.length, right.length);
    }

    private static int compareValues(PrimaryKeyValue a, PrimaryKeyValue b) {
        int rankA = rank(a);
        int rankB = rank(b);
        if (rankA != 0 || rankB != 0) {
            return Integer.compare(rankA, rankB);
        }
        return a.compareTo(b);
    }

    private static int rank(PrimaryKeyValue value) {
        if (value.isInfMin()) {
            return -1;
        }
        return value.isInfMax() ? 1 : 0;
    }

    private static boolean boundaryMeets(Optional<PrimaryKey> end, Optional<PrimaryKey> nextStart) {
        // An open end (+∞) followed by another range, or an open start (−∞) after one, is an
        // overlap.
        return end.isPresent()
                && nextStart.isPresent()
                && compareKeys(end.get(), nextStart.get()) == 0;
    }

    private static int compareStarts(Optional<PrimaryKey> a, Optional<PrimaryKey> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(a.isPresent(), b.isPresent());
        }
        return compareKeys(a.get(), b.get());
    }

    private static int compareEnds(Optional<PrimaryKey> a, Optional<PrimaryKey> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(b.isPresent(), a.isPresent());
        }
        return compareKeys(a.get(), b.get());
    }

    private static Optional<PrimaryKey> maxStart(Optional<PrimaryKey> a, Optional<PrimaryKey> b) {
        return compareStarts(a, b) >= 0 ? a : b;
    }

    private static Optional<PrimaryKey> minEnd(Optional<PrimaryKey> a, Optional<PrimaryKey> b) {
        return compareEnds(a, b) <= 0 ? a : b;
    }

    @Override
    public String toString() {
        return "["
                + start.map(Object::toString).orElse("-inf")
                + ", "
                + end.map(Object::toString).orElse("+inf")
                + ")";
    }
}
