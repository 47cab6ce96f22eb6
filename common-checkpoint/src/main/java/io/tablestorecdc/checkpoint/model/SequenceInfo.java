package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.util.Comparator;

/**
 * The server's ordering of one change: epoch, commit timestamp (microseconds) and row index.
 *
 * <p>Orders the changes of one primary key; all zero when the server sends none.
 */
@PublicEvolving
public record SequenceInfo(int epoch, long timestampMicros, int rowIndex)
        implements Comparable<SequenceInfo> {

    /** No order of its own (base data, or an input without one): arrival order counts. */
    public static final SequenceInfo NONE = new SequenceInfo(0, 0L, 0);

    private static final Comparator<SequenceInfo> ORDER =
            Comparator.comparingInt(SequenceInfo::epoch)
                    .thenComparingLong(SequenceInfo::timestampMicros)
                    .thenComparingInt(SequenceInfo::rowIndex);

    /** Whether this is a real position in a stream, not {@link #NONE}. */
    public boolean isPresent() {
        return !equals(NONE);
    }

    @Override
    public int compareTo(SequenceInfo other) {
        return ORDER.compare(this, other);
    }
}
