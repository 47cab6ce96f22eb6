package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;

/**
 * What planning does with a readable channel before it knows whether the channel has data.
 *
 * <p>A probe is a full {@code readRecords} whose page the task then downloads and parses again, so
 * planning probes only channels it knows nothing better about: those that ended the previous batch
 * caught up (they read less than their cap), were not read in it, or were newly adopted. A channel
 * that filled its cap still has a backlog; at the first batch of a query nothing is known, and
 * reading every channel costs about what probing every channel would (one request each), so both
 * are read without a probe. An empty read costs one task and one meta row per channel, once.
 */
enum ProbeDecision {
    /** Read it in the next batch, no probe: it has, or may well have, a large backlog. */
    READ,
    /** Probe it now: one read whose records are dropped tells whether it has data. */
    PROBE,
    /** Its last probe found nothing and its backoff has not passed: leave it for now. */
    WAIT;

    /**
     * The decision for {@code entry}, the channel's entry in the start snapshot of the batch being
     * planned.
     *
     * @param start the offset the batch starts at (its read set is the previous batch's plan)
     * @param idle the backoff of channels whose last probe was empty
     */
    static ProbeDecision of(TablestoreOffset start, ChannelCheckpoint entry, IdleProbes idle) {
        if (start.batch() == 0 || filledItsCap(start, entry)) {
            return READ;
        }
        return idle.due(entry.channelId()) ? PROBE : WAIT;
    }

    private static boolean filledItsCap(TablestoreOffset start, ChannelCheckpoint entry) {
        Long lastCap = start.read().get(entry.channelId());
        return lastCap != null
                && lastCap != TablestoreOffset.UNCAPPED
                && entry.batchRecords() >= lastCap;
    }
}
