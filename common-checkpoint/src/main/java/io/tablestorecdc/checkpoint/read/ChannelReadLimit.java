package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Duration;
import java.util.Objects;

/**
 * When a first (not replayed) read of a channel within one batch stops: after a number of records,
 * after a time budget, or when the server has nothing more right now. Whichever comes first.
 *
 * @param maxRecords the most records to deliver in this batch ({@link Long#MAX_VALUE} for no cap)
 * @param timeBudget how long the read may keep asking the server for more (checked between
 *     responses, so one response may run past it)
 */
@Internal
public record ChannelReadLimit(long maxRecords, Duration timeBudget) {

    public ChannelReadLimit {
        Objects.requireNonNull(timeBudget, "timeBudget");
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords must be >= 1 but was " + maxRecords);
        }
        if (timeBudget.isNegative() || timeBudget.isZero()) {
            throw new IllegalArgumentException("timeBudget must be positive but was " + timeBudget);
        }
    }

    public static ChannelReadLimit unbounded() {
        return new ChannelReadLimit(Long.MAX_VALUE, Duration.ofDays(365));
    }
}
