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
import java.util.function.Function;
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

    /** How long a channel of one of several tables may be not found before the job fails. */
    static final Duration TABLE_VERDICT_PATIENCE = Duration.ofSeconds(60);

    private static final Duration NOT_FOUND_BACKOFF = Duration.ofSeconds(1);

    /** How long after the end position a caught-up channel counts as stopped. */
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private static final long MAX_WAIT_MILLIS = 100;

    /** How long a close lets a read in flight end before interrupting it (its page is dropped). */
    private static final long READ_AHEAD_STOP_MILLIS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(ChannelSplitReader.class);

    private final TunnelProxy proxy;
    private final ExecutorService aheadThread;
    private final TunnelPages pages;
    private final Function<Optional<String>, Optional<TunnelClientId>> clients;
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
     * A reader of one table's channels that records what it fetched in {@code fetched} and, with
     * {@code stopAt}, stops each channel at that end position.
     */
    public ChannelSplitReader(
            TunnelProxy proxy,
            Supplier<Optional<TunnelClientId>> client,
            FetchedChannels fetched,
            Optional<Instant> stopAt) {
        this(proxy, table -> client.get(), fetched, stopAt);
    }

    /**
     * A reader that reads each table's channels with that table's client from {@code clients}, and
     * otherwise as {@link #ChannelSplitReader(TunnelProxy, Supplier, FetchedChannels, Optional)}.
     */
    public ChannelSplitReader(
            TunnelProxy proxy,
            Function<Optional<String>, Optional<TunnelClientId>> clients,
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
        this.clients = clients;
        this.fetched = fetched;
        this.stopAt = stopAt;
        this.stopAtMicros =
                stopAt.map(t -> ChronoUnit.MICROS.between(Instant.EPOCH, t)).orElse(Long.MAX_VALUE);
    }

    @Override
    public RecordsWithSplitIds<ChannelRecord> fetch() throws IOException {
        Optional<ScheduledChannel> next = nextDue();
        if (next.isEmpty()) {
            pause();
            return ResponseRecords.ended(Set.of());
        }
        ScheduledChannel channel = next.get();
        if (fetched.isSkipped(channel.splitId(), channel.table())) {
            LOG.warn(
                    "Not reading channel {}: the tunnel server can no longer serve it"
                            + " (on.server.ahead=skip), or its table is no longer read",
                    channel.splitId());
            end(channel);
            return ResponseRecords.ended(Set.of(channel.splitId()));
        }
        ResponseRecords records = read(clients.apply(channel.table()).orElseThrow(), channel);
        requestNextPage();
        return records;
    }

    /** Reads one response of {@code channel}; its records go to the engine with their positions. */
    private ResponseRecords read(TunnelClientId id, ScheduledChannel channel) throws IOException {
        long startedMillis = fetched.nowMillis();
        ChannelResponse response;
        try {
            response = channel.reader(pages, id).takeResponse();
        } catch (TunnelException e) {
            if (awaitsVerdictOnItsTable(channel, e)) {
                return ResponseRecords.ended(Set.of());
            }
            throw new IOException(
                    "Reading channel " + channel.splitId() + " failed: " + e.getMessage(), e);
        }
        channel.found();
        noteFetch(channel, response);
        stopIfCaughtUpPastTheEnd(channel, response, startedMillis);
        Set<String> ended = Set.of();
        if (channel.isFinished() || channel.isStopped()) {
            end(channel);
            ended = Set.of(channel.splitId());
        } else if (!response.mayMoreRecord()) {
            channel.backOffUntil(System.nanoTime() + IDLE_BACKOFF.toNanos());
        }
        // Round robin: the channel just read goes to the back.
        if (channels.remove(channel.splitId()) != null) {
            channels.put(channel.splitId(), channel);
        }
        return ResponseRecords.of(response, channel.splitId(), ended);
    }

    /**
     * Whether a channel of one of several tables that the server says does not exist (or whose
     * tunnel id it refuses) waits for the enumerator instead of failing the job: its table may have
     * been dropped, which the enumerator tells by ending the table's splits. For {@link
     * #TABLE_VERDICT_PATIENCE} at most; a channel still refused then fails the job.
     */
    private boolean awaitsVerdictOnItsTable(ScheduledChannel channel, TunnelException e) {
        boolean missing =
                e.kind() == TunnelException.Kind.NOT_FOUND
                        || e.kind() == TunnelException.Kind.INVALID;
        if (channel.table().isEmpty() || !missing) {
            return false;
        }
        long now = System.nanoTime();
        long since = channel.notFoundSince(now);
        if (now - since > TABLE_VERDICT_PATIENCE.toNanos()) {
            return false;
        }
        if (since == now) {
            LOG.warn(
                    "Channel {} was not found: waiting for the source to say whether table {} was"
                            + " dropped ({})",
                    channel.splitId(),
                    channel.table().get(),
                    e.getMessage());
        }
        channel.backOffUntil(now + NOT_FOUND_BACKOFF.toNanos());
        return true;
    }

    /** Asks for the page the next fetch will read, while this fetch's records are handled. */
    private void requestNextPage() {
        if (stopAt.isEmpty()) {
            nextDue()
                    .filter(c -> !fetched.isSkipped(c.splitId(), c.table()))
                    .ifPresent(c -> c.reader(pages, clients.apply(c.table()).get()).readAhead());
        }
    }

    private void noteFetch(ScheduledChannel channel, ChannelResponse response) {
        boolean mayMore = response.mayMoreRecord() || channel.isStopped();
        fetched.fetched(
                channel.splitId(),
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
            fetched.stopped(channel.splitId());
        }
        fetched.forget(channel.splitId());
        channels.remove(channel.splitId());
        paused.remove(channel.splitId());
    }

    /**
     * The first channel due, not paused, whose table's client arrived or which is to be ended
     * unread.
     */
    private Optional<ScheduledChannel> nextDue() {
        long now = System.nanoTime();
        for (ScheduledChannel channel : channels.values()) {
            if (paused.contains(channel.splitId())) {
                continue;
            }
            // One to end unread is due at once; one to read once its table's client arrived.
            if (fetched.isSkipped(channel.splitId(), channel.table())
                    || (channel.isDue(now) && clients.apply(channel.table()).isPresent())) {
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
                    new ScheduledChannel(
                            split.table(), split.channelId(), split.position(), baseData, stopAt));
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
