package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The channels as the last planning saw them, for {@code StreamingQueryProgress.sources[].metrics}.
 *
 * @param open channels the server has opened to this query and that are not finished
 * @param waiting known, unfinished channels held back (WAIT children, stream behind base data, …)
 * @param finished finished channels kept as tombstones
 * @param withData channels the last planned batch reads
 * @param maxLagMillis the largest commit-time lag of a channel with data to read (0 when caught up)
 * @param sumLagMillis the summed lag of the channels with data to read
 */
record ChannelStatus(
        int open, int waiting, int finished, int withData, long maxLagMillis, long sumLagMillis) {

    static final ChannelStatus NONE = new ChannelStatus(0, 0, 0, 0, 0, 0);

    static ChannelStatus of(MergeResult merge, List<ChannelCheckpoint> toRead) {
        int finished =
                (int)
                        merge.entries().values().stream()
                                .filter(ChannelCheckpoint::isFinished)
                                .count();
        long now = System.currentTimeMillis();
        long max = 0;
        long sum = 0;
        for (ChannelCheckpoint c : toRead) {
            long last = c.lastSequence().timestampMicros() / 1000;
            long lag = last > 0 ? Math.max(0, now - last) : 0;
            max = Math.max(max, lag);
            sum += lag;
        }
        return new ChannelStatus(
                merge.readable().size(), merge.held().size(), finished, toRead.size(), max, sum);
    }

    /** The channels of two tables together: counts and summed lag added, the largest lag kept. */
    ChannelStatus plus(ChannelStatus other) {
        return new ChannelStatus(
                open + other.open,
                waiting + other.waiting,
                finished + other.finished,
                withData + other.withData,
                Math.max(maxLagMillis, other.maxLagMillis),
                sumLagMillis + other.sumLagMillis);
    }

    Map<String, String> asMetrics() {
        Map<String, String> m = new TreeMap<>();
        m.put("channelsOpen", String.valueOf(open));
        m.put("channelsWaiting", String.valueOf(waiting));
        m.put("channelsFinished", String.valueOf(finished));
        m.put("channelsWithData", String.valueOf(withData));
        m.put("maxLagMillis", String.valueOf(maxLagMillis));
        m.put("sumLagMillis", String.valueOf(sumLagMillis));
        return m;
    }
}
