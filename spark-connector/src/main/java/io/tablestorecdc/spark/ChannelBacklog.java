package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;

/**
 * A channel with data to read in the next batch and a lower bound of how much.
 *
 * @param entry the channel's entry in the committed start snapshot
 * @param records records known to be waiting ({@link #LARGE} when the server may have more than it
 *     returned; 1 for a channel whose only news is its end)
 * @param reachesEnd whether the planning probe saw the channel's end: reading it finishes the
 *     channel, which lets its children be read
 */
record ChannelBacklog(ChannelCheckpoint entry, long records, boolean reachesEnd) {

    /** More than any read limit: the channel can fill whatever share it gets. */
    static final long LARGE = Long.MAX_VALUE;

    /** A backlog known without a probe (whose end, if any, is not in view). */
    ChannelBacklog(ChannelCheckpoint entry, long records) {
        this(entry, records, false);
    }

    /** What a probe read shows of the channel whose committed position skips {@code skip}. */
    static ChannelBacklog probed(ChannelCheckpoint entry, ReadResult probe, long skip) {
        return new ChannelBacklog(entry, estimate(probe, skip), probe.isFinished());
    }

    /** The backlog a probe read shows after skipping {@code skip} consumed records. */
    static long estimate(ReadResult probe, long skip) {
        long remaining = Math.max(0, probe.records().size() - skip);
        if (remaining > 0) {
            return probe.mayMoreRecord() ? LARGE : remaining;
        }
        return probe.isFinished() ? 1 : 0;
    }
}
