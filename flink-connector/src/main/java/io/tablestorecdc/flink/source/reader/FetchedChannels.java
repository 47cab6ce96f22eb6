package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;

/**
 * What one reader's fetcher saw of its channels, shared with the reader's mailbox thread (hence
 * thread-safe): the commit time of the newest record fetched per channel and whether the channel
 * was caught up, for the lag metrics; and which channels stopped at the source's end position, so
 * that the reader tells a stopped split from a finished one.
 */
@Internal
public final class FetchedChannels {

    private final LongSupplier clockMillis;
    private final Map<String, Progress> progress = new ConcurrentHashMap<>();
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();
    private final Set<String> skipped = ConcurrentHashMap.newKeySet();

    /** In a source of several tables, the tables read now; null before the enumerator said. */
    private volatile Set<String> tablesRead;

    private volatile long fetchLagMillis = -1;

    public FetchedChannels() {
        this(System::currentTimeMillis);
    }

    FetchedChannels(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    /** The wall clock the lags are measured with. */
    long nowMillis() {
        return clockMillis.getAsLong();
    }

    /**
     * Records a fetch of {@code channelId}: the commit time of its newest record (0 when the
     * response had none or the server sent no time) and whether the server may have more now.
     */
    void fetched(String channelId, long newestCommitMillis, boolean mayMore) {
        fetched(channelId, newestCommitMillis, mayMore, null);
    }

    /**
     * As {@link #fetched(String, long, boolean)}, with the channel's position after the fetch: when
     * the server had nothing more, the position at which the channel was found drained.
     */
    void fetched(
            String channelId, long newestCommitMillis, boolean mayMore, ChannelPosition after) {
        long now = nowMillis();
        Progress before = progress.getOrDefault(channelId, Progress.NONE);
        long newest = newestCommitMillis > 0 ? newestCommitMillis : before.newestCommitMillis();
        progress.put(channelId, new Progress(newest, !mayMore, mayMore ? null : after));
        if (newestCommitMillis > 0) {
            fetchLagMillis = Math.max(0, now - newestCommitMillis);
        }
    }

    /** Marks {@code channelId} as stopped at the end position (not finished). */
    void stopped(String channelId) {
        stopped.add(channelId);
    }

    /** Whether the split of {@code channelId} ended at the end position (and forgets it). */
    boolean takeStopped(String channelId) {
        return stopped.remove(channelId);
    }

    /** Forgets a channel that is no longer read here. */
    /**
     * Channels the enumerator skipped ({@code on.server.ahead=skip}): the server can no longer
     * serve them, so the split readers end them as finished without reading.
     */
    void skip(Set<String> channelIds) {
        skipped.addAll(channelIds);
    }

    /**
     * Whether the split reader ends split {@code splitId} of {@code table} (named in a source of
     * several tables) unread: skipped, or of a table the source no longer reads.
     */
    boolean isSkipped(String splitId, Optional<String> table) {
        if (skipped.contains(splitId)) {
            return true;
        }
        Set<String> read = tablesRead;
        return read != null && table.isPresent() && !read.contains(table.get());
    }

    /**
     * The tables a source of several tables reads now: the split readers end the splits of any
     * other table unread (the enumerator closed their tunnel clients).
     */
    void readTables(Set<String> tables) {
        tablesRead = Set.copyOf(tables);
    }

    void forget(String channelId) {
        progress.remove(channelId);
    }

    /**
     * How far {@code channelId} is behind its newest change: 0 when its last read found it caught
     * up, else now minus the commit time of the newest record fetched; empty before any record.
     */
    public OptionalLong millisBehindLatest(String channelId) {
        Progress p = progress.get(channelId);
        if (p == null || (p.newestCommitMillis() == 0 && !p.caughtUp())) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(
                p.caughtUp() ? 0 : Math.max(0, nowMillis() - p.newestCommitMillis()));
    }

    /**
     * The greatest {@link #millisBehindLatest} of the channels of {@code table} this reader reads
     * (a source of several tables); empty before any of them was read.
     */
    public OptionalLong millisBehindLatestOfTable(String table) {
        String prefix = table + ChannelSplit.TABLE_SEPARATOR;
        OptionalLong max = OptionalLong.empty();
        for (String splitId : progress.keySet()) {
            if (splitId.startsWith(prefix)) {
                OptionalLong lag = millisBehindLatest(splitId);
                if (lag.isPresent() && (max.isEmpty() || lag.getAsLong() > max.getAsLong())) {
                    max = lag;
                }
            }
        }
        return max;
    }

    /**
     * FLIP-33 {@code currentFetchEventTimeLag}: fetch time minus the commit time of the newest
     * record of the last fetch that had one; empty before the first.
     */
    public OptionalLong fetchEventTimeLag() {
        long lag = fetchLagMillis;
        return lag < 0 ? OptionalLong.empty() : OptionalLong.of(lag);
    }

    /**
     * Whether the channel's last fetch found it drained exactly at {@code position}: everything the
     * server held was read up to there.
     */
    boolean isDrainedAt(String channelId, ChannelPosition position) {
        Progress p = progress.get(channelId);
        return p != null && p.caughtUp() && position.equals(p.drainedAt());
    }

    private record Progress(long newestCommitMillis, boolean caughtUp, ChannelPosition drainedAt) {
        static final Progress NONE = new Progress(0, false, null);
    }
}
