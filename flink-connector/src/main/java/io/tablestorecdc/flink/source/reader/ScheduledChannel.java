package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.read.ChannelReader;
import io.tablestorecdc.checkpoint.read.TunnelPages;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.time.Instant;
import java.util.Optional;

/**
 * One channel of a split reader: its core {@link ChannelReader} (positions, responses, the stop
 * position) and the split reader's scheduling state (when it is due again, whether it stopped
 * caught up past the end position).
 */
final class ScheduledChannel {

    private final String splitId;
    private final Optional<String> table;
    private final String channelId;
    private final ChannelPosition start;
    private final boolean baseData;
    private final Optional<Instant> stopAt;
    private Optional<ChannelReader> reader = Optional.empty();
    private TunnelClientId readerClient;
    private long notBeforeNanos;
    private boolean stoppedCaughtUp;
    private long notFoundSinceNanos;
    private boolean notFound;

    ScheduledChannel(
            String channelId, ChannelPosition start, boolean baseData, Optional<Instant> stopAt) {
        this(Optional.empty(), channelId, start, baseData, stopAt);
    }

    /** A channel of {@code table} (named in a source of several tables). */
    ScheduledChannel(
            Optional<String> table,
            String channelId,
            ChannelPosition start,
            boolean baseData,
            Optional<Instant> stopAt) {
        this.splitId = ChannelSplit.idOf(table, channelId);
        this.table = table;
        this.channelId = channelId;
        this.start = start;
        this.baseData = baseData;
        // Base-data channels carry no commit times and are read to their end.
        this.stopAt = baseData ? Optional.empty() : stopAt;
    }

    String channelId() {
        return channelId;
    }

    /** The id of the channel's split: the channel id, or {@code <table>/<channel id>}. */
    String splitId() {
        return splitId;
    }

    Optional<String> table() {
        return table;
    }

    /**
     * The channel's reader for {@code client}, made on first use (the client arrives after the
     * split) and again, from where the channel stands, should the client change.
     */
    ChannelReader reader(TunnelPages pages, TunnelClientId client) {
        if (reader.isEmpty() || !client.equals(readerClient)) {
            reader =
                    Optional.of(
                            ChannelReader.from(pages, client, channelId, position())
                                    .stoppingAfter(stopAt));
            readerClient = client;
        }
        return reader.get();
    }

    ChannelPosition position() {
        return reader.map(ChannelReader::position).orElse(start);
    }

    boolean isFinished() {
        return position().isFinished();
    }

    /** Whether the channel reached the source's end position (it is not read any further). */
    boolean isStopped() {
        return stoppedCaughtUp || reader.map(ChannelReader::isStopped).orElse(false);
    }

    /** Whether being caught up past the end position stops it (stream channels only). */
    boolean mayStopWhenCaughtUp() {
        return !baseData;
    }

    /** Stops the channel where it is: nothing after the end position is left to read in it. */
    void stopCaughtUp() {
        stoppedCaughtUp = true;
    }

    /** Since when the server says the channel does not exist; {@code nowNanos} on the first. */
    long notFoundSince(long nowNanos) {
        if (!notFound) {
            notFound = true;
            notFoundSinceNanos = nowNanos;
        }
        return notFoundSinceNanos;
    }

    /** The server served the channel. */
    void found() {
        notFound = false;
    }

    boolean isDue(long nowNanos) {
        return nowNanos >= notBeforeNanos;
    }

    void backOffUntil(long nanos) {
        notBeforeNanos = nanos;
    }
}
