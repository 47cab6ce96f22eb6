package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the split reader is in one channel, and how a response moves it.
 *
 * <p>A position is a token plus records already consumed after it. A response read from token T
 * with records r0..rn-1 and next token T' moves the cursor to T'; the position after record i is
 * (T, i + 1), and after the last one T' (finished when T' is). The first {@code skip} records of a
 * read are ones emitted before (a checkpoint fell inside a response), so they are dropped, however
 * the server splits its responses this time.
 */
final class ChannelCursor {

    private final String channelId;
    private ChannelPosition position;
    private long notBeforeNanos;

    ChannelCursor(String channelId, ChannelPosition position) {
        this.channelId = channelId;
        this.position = position;
    }

    String channelId() {
        return channelId;
    }

    ChannelPosition position() {
        return position;
    }

    boolean isFinished() {
        return position.isFinished();
    }

    boolean isDue(long nowNanos) {
        return nowNanos >= notBeforeNanos;
    }

    long notBeforeNanos() {
        return notBeforeNanos;
    }

    void backOffUntil(long nanos) {
        notBeforeNanos = nanos;
    }

    /** Applies one response read from {@link #position()}'s token; returns the new records. */
    List<PositionedRecord> apply(ReadResult result) {
        String token = position.token();
        long skip = position.skip();
        List<ChangeRecord> records = result.records();
        List<PositionedRecord> out = new ArrayList<>();
        for (int i = (int) Math.min(skip, records.size()); i < records.size(); i++) {
            ChannelPosition after =
                    i + 1 == records.size() ? result.next() : ChannelPosition.at(token, i + 1);
            out.add(new PositionedRecord(records.get(i), after));
        }
        long skipLeft = Math.max(0, skip - records.size());
        position =
                result.next().isFinished()
                        ? ChannelPosition.finished()
                        : ChannelPosition.at(result.next().token(), skipLeft);
        return out;
    }
}
