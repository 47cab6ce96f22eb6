package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * Reads the channels assigned to one reader, one {@code readRecords} call per fetch, round robin.
 *
 * <p>A channel whose response said "no more records right now" is polled again only after a short
 * back-off, so idle stream channels cost one small request per back-off. A {@code finished} next
 * token finishes the split. Reads use the enumerator's tunnel client id, which arrives by event.
 */
@Internal
public final class ChannelSplitReader implements SplitReader<PositionedRecord, ChannelSplit> {

    static final Duration IDLE_BACKOFF = Duration.ofMillis(200);
    private static final long MAX_WAIT_MILLIS = 100;

    private final TunnelProxy proxy;
    private final Supplier<Optional<TunnelClientId>> client;
    private final Map<String, ChannelCursor> cursors = new LinkedHashMap<>();
    private final Set<String> paused = new HashSet<>();
    private final Object wakeUp = new Object();

    public ChannelSplitReader(TunnelProxy proxy, Supplier<Optional<TunnelClientId>> client) {
        this.proxy = proxy;
        this.client = client;
    }

    @Override
    public RecordsWithSplitIds<PositionedRecord> fetch() throws IOException {
        RecordsBySplits.Builder<PositionedRecord> out = new RecordsBySplits.Builder<>();
        Optional<TunnelClientId> id = client.get();
        Optional<ChannelCursor> next = id.isPresent() ? nextDue() : Optional.empty();
        if (next.isEmpty()) {
            pause();
            return out.build();
        }
        ChannelCursor cursor = next.get();
        read(id.get(), cursor, out);
        return out.build();
    }

    private void read(
            TunnelClientId id, ChannelCursor cursor, RecordsBySplits.Builder<PositionedRecord> out)
            throws IOException {
        ReadResult result;
        try {
            result = proxy.readRecords(id, cursor.channelId(), cursor.position().token());
        } catch (TunnelException e) {
            throw new IOException(
                    "Reading channel " + cursor.channelId() + " failed: " + e.getMessage(), e);
        }
        List<PositionedRecord> records = cursor.apply(result);
        if (!records.isEmpty()) {
            out.addAll(cursor.channelId(), records);
        }
        if (cursor.isFinished()) {
            cursors.remove(cursor.channelId());
            out.addFinishedSplit(cursor.channelId());
        } else if (!result.mayMoreRecord()) {
            cursor.backOffUntil(System.nanoTime() + IDLE_BACKOFF.toNanos());
        }
        // Round robin: the channel just read goes to the back.
        if (cursors.remove(cursor.channelId()) != null) {
            cursors.put(cursor.channelId(), cursor);
        }
    }

    private Optional<ChannelCursor> nextDue() {
        long now = System.nanoTime();
        for (ChannelCursor cursor : cursors.values()) {
            if (!paused.contains(cursor.channelId()) && cursor.isDue(now)) {
                return Optional.of(cursor);
            }
        }
        return Optional.empty();
    }

    private void pause() {
        synchronized (wakeUp) {
            try {
                wakeUp.wait(MAX_WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<ChannelSplit> splitsChanges) {
        if (!(splitsChanges instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "Unsupported splits change " + splitsChanges.getClass().getSimpleName());
        }
        for (ChannelSplit split : splitsChanges.splits()) {
            cursors.put(split.splitId(), new ChannelCursor(split.splitId(), split.position()));
        }
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<ChannelSplit> splitsToPause, Collection<ChannelSplit> splitsToResume) {
        splitsToPause.forEach(s -> paused.add(s.splitId()));
        splitsToResume.forEach(s -> paused.remove(s.splitId()));
    }

    @Override
    public void wakeUp() {
        synchronized (wakeUp) {
            wakeUp.notifyAll();
        }
    }

    @Override
    public void close() {
        proxy.close();
    }

    /** Ids of the channels being read, in polling order (for tests). */
    List<String> channelIds() {
        return new ArrayList<>(cursors.keySet());
    }
}
