package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * Tablestore's primary-key order: column by column; INTEGER numerically, STRING (as UTF-8) and
 * BINARY bytewise unsigned; INF_MIN before and INF_MAX after every value. The SDK's own {@code
 * PrimaryKeyValue.compareTo} orders strings by UTF-16 units, which differs for characters beyond
 * the Basic Multilingual Plane, so the emulator does not use it.
 */
public final class PrimaryKeyOrder implements Comparator<PrimaryKey> {

    public static final PrimaryKeyOrder INSTANCE = new PrimaryKeyOrder();

    private PrimaryKeyOrder() {}

    @Override
    public int compare(PrimaryKey a, PrimaryKey b) {
        PrimaryKeyColumn[] left = a.getPrimaryKeyColumns();
        PrimaryKeyColumn[] right = b.getPrimaryKeyColumns();
        int shared = Math.min(left.length, right.length);
        for (int i = 0; i < shared; i++) {
            int c = compareValues(left[i].getValue(), right[i].getValue());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(left.length, right.length);
    }

    /** Compares two primary-key cell values, including INF_MIN and INF_MAX. */
    public static int compareValues(PrimaryKeyValue a, PrimaryKeyValue b) {
        int rankA = rank(a);
        int rankB = rank(b);
        if (rankA != 0 || rankB != 0) {
            return Integer.compare(rankA, rankB);
        }
        if (a.getType() != b.getType()) {
            // Never within one validated table; ordered by type so the order stays total.
            return Integer.compare(a.getType().ordinal(), b.getType().ordinal());
        }
        switch (a.getType()) {
            case INTEGER:
                return Long.compare(a.asLong(), b.asLong());
            case STRING:
                return compareBytes(
                        a.asString().getBytes(StandardCharsets.UTF_8),
                        b.asString().getBytes(StandardCharsets.UTF_8));
            case BINARY:
                return compareBytes(a.asBinary(), b.asBinary());
            default:
                throw new IllegalArgumentException("Unsupported primary-key type " + a.getType());
        }
    }

    /** -1 for INF_MIN, +1 for INF_MAX, 0 for an ordinary value. */
    private static int rank(PrimaryKeyValue v) {
        if (v.isInfMin()) {
            return -1;
        }
        if (v.isInfMax()) {
            return 1;
        }
        return 0;
    }

    static int compareBytes(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(a[i] & 0xff, b[i] & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }
}
