package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Objects;

/**
 * A channel's checkpoint as the tunnel server stores it.
 *
 * @param position the checkpointed token (skip is always 0: the server stores tokens only), or
 *     finished
 * @param sequenceNumber the sequence number of the last accepted checkpoint; the next checkpoint
 *     must carry {@code sequenceNumber + 1}
 */
@Internal
public record ServerCheckpoint(ChannelPosition position, long sequenceNumber) {

    public ServerCheckpoint {
        Objects.requireNonNull(position, "position");
    }

    /** The sequence number the next checkpoint of this channel must carry. */
    public long nextSequenceNumber() {
        return sequenceNumber + 1;
    }
}
