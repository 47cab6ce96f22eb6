package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.model.Row;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * What one readrecords call returns, copied out of the service's state so it can be encoded without
 * holding the lock.
 *
 * @param baseRows the snapshot rows (base-data channels)
 * @param entries the log entries (stream channels)
 * @param next the next position; empty when the channel is finished after these records
 * @param mayMore whether more records were already available when the batch was cut
 * @param tokenAfter the position after the first {@code k} of these records (1 ≤ k < size), for
 *     cutting the batch shorter after encoding ({@link #cutTo})
 */
record ReadBatch(
        List<Row> baseRows,
        List<LogEntry> entries,
        Optional<ChannelToken> next,
        boolean mayMore,
        IntFunction<ChannelToken> tokenAfter) {

    /** The {@code tokenAfter} of a batch without records (never called: nothing to cut). */
    static final IntFunction<ChannelToken> EMPTY =
            k -> {
                throw new IllegalStateException("An empty batch has no position to cut at");
            };

    static ReadBatch finished(
            List<Row> baseRows, List<LogEntry> entries, IntFunction<ChannelToken> tokenAfter) {
        return new ReadBatch(baseRows, entries, Optional.empty(), false, tokenAfter);
    }

    int size() {
        return baseRows.size() + entries.size();
    }

    /**
     * The first {@code count} records only, continuing after them: the rest were available, so more
     * may follow, and the channel is not finished here.
     */
    ReadBatch cutTo(int count) {
        if (count < 1 || count >= size()) {
            throw new IllegalArgumentException(
                    "A batch of " + size() + " records cannot be cut to " + count);
        }
        return new ReadBatch(
                baseRows.subList(0, Math.min(count, baseRows.size())),
                entries.subList(0, Math.min(count, entries.size())),
                Optional.of(tokenAfter.apply(count)),
                true,
                tokenAfter);
    }
}
