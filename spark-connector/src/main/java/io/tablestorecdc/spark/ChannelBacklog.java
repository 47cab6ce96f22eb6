package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;

/**
 * A channel with data to read in the next batch and a lower bound of how much.
 *
 * @param entry the channel's entry in the committed start snapshot
 * @param records records known to be waiting ({@link #LARGE} when the server may have more than it
 *     returned; 1 for a channel whose only news is its end)
 */
record ChannelBacklog(ChannelCheckpoint entry, long records) {

    /** More than any read limit: the channel can fill whatever share it gets. */
    static final long LARGE = Long.MAX_VALUE;

    /** The backlog a probe read shows after skipping {@code skip} consumed records. */
    static long estimate(ReadResult probe, long skip) {
        long remaining = Math.max(0, probe.records().size() - skip);
        if (remaining > 0) {
            return probe.mayMoreRecord() ? LARGE : remaining;
        }
        return probe.isFinished() ? 1 : 0;
    }
}
