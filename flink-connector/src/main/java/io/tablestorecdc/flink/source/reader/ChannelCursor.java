package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.read.ResponsePositions;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the split reader is in one channel, and how a response moves it: by the core's position
 * arithmetic ({@link ResponsePositions}, the rule Spark's reader follows too). The first records of
 * a response that were emitted before (a checkpoint fell inside an earlier response from the same
 * token) are dropped, however the server splits its responses this time.
 */
final class ChannelCursor {

    private final String channelId;
    private ChannelPosition position;
    private long notBeforeNanos;
    private boolean stopped;
    private boolean baseData;

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

    /** Marks this a base-data channel: it has no commit times and is read to its end. */
    ChannelCursor base() {
        baseData = true;
        return this;
    }

    /** Whether being caught up past the end position stops it (stream channels only). */
    boolean mayStopWhenCaughtUp() {
        return !baseData;
    }

    /** Whether the channel reached the source's end position (it is not read any further). */
    boolean isStopped() {
        return stopped;
    }

    /** Applies one response read from {@link #position()}'s token; returns the new records. */
    List<PositionedRecord> apply(ReadResult result) {
        return apply(result, Long.MAX_VALUE);
    }

    /**
     * Applies one response, keeping only records committed at or before {@code stopAtMicros}: at
     * the first record committed after it the channel stops, positioned right before that record
     * (so a later reader resumes exactly there). Records without a commit time never stop it.
     */
    List<PositionedRecord> apply(ReadResult result, long stopAtMicros) {
        ChannelPosition from = position;
        List<ChangeRecord> records = result.records();
        int size = records.size();
        List<PositionedRecord> out = new ArrayList<>();
        for (int i = ResponsePositions.alreadyConsumed(from, size); i < size; i++) {
            ChangeRecord record = records.get(i); // converted here, once
            if (record.commitTimestampMicros() > stopAtMicros) {
                position = ResponsePositions.before(from, i, size, result.next());
                stopped = true;
                return out;
            }
            out.add(
                    new PositionedRecord(
                            record, ResponsePositions.before(from, i + 1, size, result.next())));
        }
        position = ResponsePositions.before(from, size, size, result.next());
        return out;
    }

    /** Stops the channel where it is: nothing after the end position is left to read in it. */
    void stop() {
        stopped = true;
    }
}
