package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;

/**
 * One channel's entry in a batch snapshot: where the next batch starts reading it, and what is
 * needed to replay the batch that ended here exactly.
 *
 * @param channelId the server's channel id
 * @param type base data or stream
 * @param lifecycle this consumer's durable view of the channel
 * @param position where the next batch resumes (finished for a tombstone)
 * @param batchRecords records the batch ending at this snapshot read from the previous snapshot's
 *     position; a replay reads exactly this many (0 when the channel was carried forward)
 * @param adoptedAt the first position at which this consumer adopted the channel; a channel whose
 *     server checkpoint runs ahead of the engine's committed state restarts from here
 * @param lastSequence sequence info of the last record read, {@link SequenceInfo#NONE} if none
 */
@Internal
public record ChannelCheckpoint(
        String channelId,
        ChannelType type,
        ChannelLifecycle lifecycle,
        ChannelPosition position,
        long batchRecords,
        ChannelPosition adoptedAt,
        SequenceInfo lastSequence) {

    public ChannelCheckpoint {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(lifecycle, "lifecycle");
        Objects.requireNonNull(position, "position");
        Objects.requireNonNull(adoptedAt, "adoptedAt");
        Objects.requireNonNull(lastSequence, "lastSequence");
        if (batchRecords < 0) {
            throw new IllegalArgumentException("batchRecords must be >= 0 but was " + batchRecords);
        }
        if (position.isFinished() != (lifecycle == ChannelLifecycle.FINISHED)) {
            throw new IllegalArgumentException(
                    "Channel "
                            + channelId
                            + " is "
                            + lifecycle
                            + " but its position is "
                            + position
                            + ": a channel is FINISHED exactly when its position is finished");
        }
    }

    /** A channel adopted at {@code position}, not read yet. */
    public static ChannelCheckpoint adopted(
            String channelId, ChannelType type, ChannelPosition position) {
        ChannelLifecycle lifecycle =
                position.isFinished() ? ChannelLifecycle.FINISHED : ChannelLifecycle.PENDING;
        return new ChannelCheckpoint(
                channelId, type, lifecycle, position, 0L, position, SequenceInfo.NONE);
    }

    /** This entry after a batch read {@code records} records and stopped at {@code end}. */
    public ChannelCheckpoint advancedTo(ChannelPosition end, long records, SequenceInfo last) {
        ChannelLifecycle next =
                end.isFinished() ? ChannelLifecycle.FINISHED : ChannelLifecycle.READING;
        SequenceInfo sequence = last.isPresent() ? last : lastSequence;
        return new ChannelCheckpoint(channelId, type, next, end, records, adoptedAt, sequence);
    }

    /** This entry carried unchanged into the next batch's snapshot. */
    public ChannelCheckpoint carriedForward() {
        return batchRecords == 0
                ? this
                : new ChannelCheckpoint(
                        channelId, type, lifecycle, position, 0L, adoptedAt, lastSequence);
    }

    public boolean isFinished() {
        return lifecycle == ChannelLifecycle.FINISHED;
    }
}
