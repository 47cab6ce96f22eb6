package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.io.Serializable;

/**
 * A {@link ChannelCheckpoint} in a form Spark can ship to executors (plain fields, stable codes).
 */
@Internal
public record ChannelStart(
        String channelId,
        String typeCode,
        String lifecycleCode,
        String token,
        long skip,
        long batchRecords,
        String adoptedToken,
        long adoptedSkip,
        int seqEpoch,
        long seqTimestampMicros,
        int seqRowIndex)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    static ChannelStart of(ChannelCheckpoint c) {
        return new ChannelStart(
                c.channelId(),
                c.type().code(),
                c.lifecycle().code(),
                c.position().token(),
                c.position().skip(),
                c.batchRecords(),
                c.adoptedAt().token(),
                c.adoptedAt().skip(),
                c.lastSequence().epoch(),
                c.lastSequence().timestampMicros(),
                c.lastSequence().rowIndex());
    }

    ChannelCheckpoint toCheckpoint() {
        return new ChannelCheckpoint(
                channelId,
                ChannelType.fromCode(typeCode),
                ChannelLifecycle.fromCode(lifecycleCode),
                ChannelPosition.at(token, skip),
                batchRecords,
                ChannelPosition.at(adoptedToken, adoptedSkip),
                new SequenceInfo(seqEpoch, seqTimestampMicros, seqRowIndex));
    }

    /** Tokens are long and opaque; the channel id and record offset are what a reader needs. */
    @Override
    public String toString() {
        return "ChannelStart{" + channelId + " +" + skip + "}";
    }
}
