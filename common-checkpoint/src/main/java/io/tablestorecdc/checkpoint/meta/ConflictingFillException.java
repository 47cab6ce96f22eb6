package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;

/**
 * A reader tried to fill a channel's end position for a batch, but another attempt had already
 * filled it with a different position (invariant 2: first writer wins). The task must fail so the
 * engine retries it as a replay up to the recorded end.
 */
@Internal
public final class ConflictingFillException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    private final transient ChannelCheckpoint recorded;

    ConflictingFillException(
            String tunnelId,
            BatchToken token,
            ChannelCheckpoint recorded,
            ChannelCheckpoint attempted) {
        super(
                "Channel "
                        + recorded.channelId()
                        + " of tunnel "
                        + tunnelId
                        + " already has an end position for batch token "
                        + token
                        + ": "
                        + describe(recorded)
                        + ", but this attempt read to "
                        + describe(attempted)
                        + ". The first writer wins: this task fails, and the engine should retry it"
                        + " as a replay that stops exactly at the recorded position.");
        this.recorded = recorded;
    }

    /** The end position the first writer recorded, which a replay must stop at. */
    public ChannelCheckpoint recorded() {
        return recorded;
    }

    static String describe(ChannelCheckpoint c) {
        return c.position()
                + " after "
                + c.batchRecords()
                + " records ("
                + c.lifecycle()
                + ", last sequence "
                + c.lastSequence()
                + ")";
    }
}
