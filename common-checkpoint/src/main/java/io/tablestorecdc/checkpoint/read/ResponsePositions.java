package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;

/**
 * Position arithmetic inside one server response, the one rule both engines' readers follow
 * (invariant 1).
 *
 * <p>A position is a token plus the records already consumed after it ({@link ChannelPosition}). A
 * response read from position (T, s) holds records r0..rn-1 and ends at the server's next token T'.
 * Its first min(s, n) records were consumed before (a batch or checkpoint ended inside an earlier
 * response from T, however the server splits its responses this time). The position before record i
 * is (T, i); after the last one it is T', carrying the part of s the response did not hold (T' + (s
 * - n) when s > n), or finished when T' is.
 */
@Internal
public final class ResponsePositions {

    private ResponsePositions() {}

    /**
     * How many of a response's {@code size} records read from {@code from} were consumed before.
     */
    public static int alreadyConsumed(ChannelPosition from, int size) {
        return from.isFinished() ? size : (int) Math.min(from.skip(), size);
    }

    /**
     * Where reading stands before record {@code index} of a response read from {@code from} that
     * holds {@code size} records and ends at {@code next}; {@code index == size} is after the
     * response.
     *
     * @throws IllegalArgumentException if {@code index} is outside the response or before the
     *     records already consumed
     */
    public static ChannelPosition before(
            ChannelPosition from, int index, int size, ChannelPosition next) {
        if (index < alreadyConsumed(from, size) || index > size) {
            throw new IllegalArgumentException(
                    "Record index "
                            + index
                            + " is outside the unread part of a response of "
                            + size
                            + " records read from "
                            + from);
        }
        if (index < size) {
            return ChannelPosition.at(from.token(), index);
        }
        if (next.isFinished()) {
            return next;
        }
        long left = Math.max(0, from.skip() - size);
        return ChannelPosition.at(next.token(), next.skip() + left);
    }
}
