package io.tablestorecdc.checkpoint.gate;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** Why a known, unfinished channel is not read in a batch. */
@Internal
public enum HoldReason {
    /** The server holds the channel in {@code WAIT}: a child whose parents have not finished. */
    WAITING_ON_SERVER("the server holds it in WAIT until its parents are finished"),
    /** BaseAndStream tunnel: stream channels wait until every base-data channel is finished. */
    BASE_DATA_UNFINISHED("a base-data channel of this BaseAndStream tunnel is not finished yet"),
    /** The server lists it CLOSING or CLOSE (rebalancing); it is offered again later. */
    NOT_OPEN("the server lists it CLOSING or CLOSE"),
    /** The server assigned it to another tunnel client. */
    ASSIGNED_TO_OTHER_CLIENT("the server assigned it to another tunnel client"),
    /**
     * Unfinished in meta but no longer listed by the server (kept under on.vanished.channel=warn).
     */
    NOT_LISTED("the server no longer lists it"),
    /** Listed by the server but this consumer has no position for it yet. */
    NOT_ADOPTED("this consumer has no start position for it yet");

    private final String explanation;

    HoldReason(String explanation) {
        this.explanation = explanation;
    }

    /** A sentence fragment for logs and metrics descriptions. */
    public String explanation() {
        return explanation;
    }
}
