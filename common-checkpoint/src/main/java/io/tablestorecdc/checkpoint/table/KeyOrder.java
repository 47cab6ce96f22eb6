package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Comparator;

/**
 * The service's primary-key order: column by column; INTEGER numerically, STRING by its UTF-8 bytes
 * and BINARY bytewise unsigned; INF_MIN before and INF_MAX after every value. The SDK's own {@code
 * compareTo} orders strings by UTF-16 units, which differs from the service for characters beyond
 * the Basic Multilingual Plane, so range arithmetic uses this order instead.
 */
@Internal
public final class KeyOrder implements Comparator<PrimaryKey> {

    /** The one instance. */
    public static final KeyOrder INSTANCE = new KeyOrder();

    private KeyOrder() {}

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

    /**
     * Compares two values of one primary-key column, INF_MIN and INF_MAX included.
     *
     * @throws IllegalArgumentException for two ordinary values of different types
     */
    public static int compareValues(PrimaryKeyValue a, PrimaryKeyValue b) {
        int rankA = rank(a);
        int rankB = rank(b);
        if (rankA != 0 || rankB != 0) {
            return Integer.compare(rankA, rankB);
        }
        if (a.getType() != b.getType()) {
            throw new IllegalArgumentException(
                    "Cannot order a " + a.getType() + " key value against a " + b.getType());
        }
        return switch (a.getType()) {
            case INTEGER -> Long.compare(a.asLong(), b.asLong());
            case STRING -> unsigned(a.asStringInBytes(), b.asStringInBytes());
            case BINARY -> unsigned(a.asBinary(), b.asBinary());
        };
    }

    private static int rank(PrimaryKeyValue v) {
        if (v.isInfMin()) {
            return -1;
        }
        return v.isInfMax() ? 1 : 0;
    }

    private static int unsigned(byte[] a, byte[] b) {
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
