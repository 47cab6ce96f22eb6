package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.read.ChannelResponse;
import io.tablestorecdc.checkpoint.read.TunnelPages;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the channels assigned to one reader, one {@code readRecords} call per fetch, round robin,
 * each through the core's {@link io.tablestorecdc.checkpoint.read.ChannelReader} (positions,
 * responses, the end position); this class only schedules them. A fetch hands the engine the new
 * records of one response as views ({@link ChannelRecord}), decoded when the emitter writes them.
 *
 * <p>A channel whose response said "no more records right now" is polled again only after a short
 * back-off, so idle stream channels cost one small request per back-off. A {@code finished} next
 * token finishes the split. Reads use the enumerator's tunnel client id, which arrives by event.
 * Paused channels (watermark alignment) are not read until resumed. While the engine handles one
 * response, the next due channel's page is already requested ({@link TunnelPages}: two requests in
 * flight per reader, one page of memory more), except with an end position, where a read's start
 * time decides whether a caught-up channel has stopped.
 *
 * <p>With an end position ({@code scan.bounded.stop-at}) a channel's split also ends, as
 * <em>stopped</em>, at its first record committed after the end, or when a read that started at
 * least {@link #STOP_GRACE} after the end finds a stream channel caught up (changes are visible in
 * the stream shortly after their commit, so one committed before the end cannot appear later than
 * that). Base-data channels carry no commit times and are read to their end.
 */
@Internal
public final class ChannelSplitReader implements SplitReader<ChannelRecord, ChannelSplit> {

    static final Duration IDLE_BACKOFF = Duration.ofMillis(200);

    /** How long after the end position a caught-up channel counts as stopped. */
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private static final long MAX_WAIT_MILLIS = 100;

    /** How long a close lets a read in flight end before interrupting it (its page is dropped). */
    private static final long READ_AHEAD_STOP_MILLIS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(ChannelSplitReader.class);

    private final TunnelProxy proxy;
    private final ExecutorService aheadThread;
    private final TunnelPages pages;
    private final Supplier<Optional<TunnelClientId>> client;
    private final Map<String, ScheduledChannel> channels = new LinkedHashMap<>();
    private final Set<String> paused = new HashSet<>();
    private final Object wakeUp = new Object();
    private final FetchedChannels fetched;
    private final Optional<Instant> stopAt;
    private final long stopAtMicros;

    /** A reader of continuous channels (no end position). */
    public ChannelSplitReader(TunnelProxy proxy, Supplier<Optional<TunnelClientId>> client) {
        this(proxy, client, new FetchedChannels(), Optional.empty());
    }

    /**
     * A reader that records what it fetched in {@code fetched} and, with {@code stopAt}, stops each
     * channel at that end position.
     */
    public ChannelSplitReader(
            TunnelProxy proxy,
            Supplier<Optional<TunnelClientId>> client,
            FetchedChannels fetched,
            Optional<Instant> stopAt) {
        this.proxy = proxy;
        this.aheadThread =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "tablestore-cdc-read-ahead");
                            t.setDaemon(true);
                            return t;
                        });
        this.pages = TunnelPages.readingAhead(proxy, aheadThread);
        this.client = client;
        this.fetched = fetched;
        this.stopAt = stopAt;
        this.stopAtMicros =
                stopAt.map(t -> ChronoUnit.MICROS.between(Instant.EPOCH, t)).orElse(Long.MAX_VALUE);
    }

    @Override
    public RecordsWithSplitIds<ChannelRecord> fetch() throws IOException {
        Optional<TunnelClientId> id = client.get();
        Optional<ScheduledChannel> next = id.isPresent() ? nextDue() : Optional.empty();
        if (next.isEmpty()) {
            pause();
            return ResponseRecords.ended(Set.of());
        }
        ScheduledChannel channel = next.get();
        if (fetched.isSkipped(channel.channelId())) {
            LOG.warn(
                    "Not reading channel {}: the tunnel server can no longer serve it"
                            + " (on.server.ahead=skip)",
                    channel.channelId());
            end(channel);
            return ResponseRecords.ended(Set.of(channel.channelId()));
        }
        ResponseRecords records = read(id.get(), channel);
        requestNextPage(id.get());
        return records;
    }

    /** Reads one response of {@code channel}; its records go to the engine with their positions. */
    private ResponseRecords read(TunnelClientId id, ScheduledChannel channel) throws IOException {
        long startedMillis = fetched.nowMillis();
        ChannelResponse response;
        try {
            response = channel.reader(pages, id).takeResponse();
        } catch (TunnelException e) {
            throw new IOException(
                    "Reading channel " + channel.channelId() + " failed: " + e.getMessage(), e);
        }
        noteFetch(channel, response);
        stopIfCaughtUpPastTheEnd(channel, response, startedMillis);
        Set<String> ended = Set.of();
        if (channel.isFinished() || channel.isStopped()) {
            end(channel);
            ended = Set.of(channel.channelId());
        } else if (!response.mayMoreRecord()) {
            channel.backOffUntil(System.nanoTime() + IDLE_BACKOFF.toNanos());
        }
        // Round robin: the channel just read goes to the back.
        if (channels.remove(channel.channelId()) != null) {
            channels.put(channel.channelId(), channel);
        }
        return ResponseRecords.of(response, ended);
    }

    /** Asks for the page the next fetch will read, while this fetch's records are handled. */
    private void requestNextPage(TunnelClientId id) {
        if (stopAt.isEmpty()) {
            nextDue().ifPresent(c -> c.reader(pages, id).readAhead());
        }
    }

    private void noteFetch(ScheduledChannel channel, ChannelResponse response) {
        boolean mayMore = response.mayMoreRecord() || channel.isStopped();
        fetched.fetched(
                channel.channelId(),
                Math.min(response.newestCommitMicros(), stopAtMicros) / 1000,
                mayMore,
                channel.position());
    }

    private void stopIfCaughtUpPastTheEnd(
            ScheduledChannel channel, ChannelResponse response, long startedMillis) {
        boolean pastGrace =
                stopAt.isPresent()
                        && startedMillis * 1000 >= stopAtMicros + STOP_GRACE.toNanos() / 1000;
        if (pastGrace && channel.mayStopWhenCaughtUp() && !response.mayMoreRecord()) {
            channel.stopCaughtUp();
        }
    }

    private void end(ScheduledChannel channel) {
        if (channel.isStopped() && !channel.isFinished()) {
            fetched.stopped(channel.channelId());
        }
        fetched.forget(channel.channelId());
        channels.remove(channel.channelId());
        paused.remove(channel.channelId());
    }

    private Optional<ScheduledChannel> nextDue() {
        long now = System.nanoTime();
        for (ScheduledChannel channel : channels.values()) {
            if (!paused.contains(channel.channelId()) && channel.isDue(now)) {
                return Optional.of(channel);
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
            boolean baseData = split.type() != ChannelType.STREAM;
            channels.put(
                    split.splitId(),
                    new ScheduledChannel(split.splitId(), split.position(), baseData, stopAt));
        }
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<ChannelSplit> splitsToPause, Collection<ChannelSplit> splitsToResume) {
        splitsToPause.forEach(s -> paused.add(s.splitId()));
        splitsToResume.forEach(s -> paused.remove(s.splitId()));
        wakeUp(); // a resumed channel is read at once, not after the idle wait
    }

    @Override
    public void wakeUp() {
        synchronized (wakeUp) {
            wakeUp.notifyAll();
        }
    }

    @Override
    public void close() {
        // A request in flight ends before the client closes; its page is dropped. No thread
        // outlives the reader (Flink closes the job's classloader right after).
        CloseSequence.of("the channel reader")
                .then("drop the page read ahead", pages::drop)
                .thenStop("stop the read-ahead thread", aheadThread, READ_AHEAD_STOP_MILLIS)
                .then("close the tunnel client", proxy::close)
                .finish();
    }

    /** Ids of the paused channels (for tests). */
    Set<String> pausedChannelIds() {
        return Set.copyOf(paused);
    }

    /** Ids of the channels being read, in polling order (for tests). */
    List<String> channelIds() {
        return new ArrayList<>(channels.keySet());
    }
}
