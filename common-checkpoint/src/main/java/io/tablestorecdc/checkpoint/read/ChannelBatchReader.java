package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Reads one channel's part of one batch, record by record, and knows where it stopped.
 *
 * <p>A first read stops at its {@link ChannelReadLimit}; its end becomes the channel's entry in the
 * batch's end snapshot, including how many records it delivered. A replay of that batch (after a
 * crash, a task retry or a speculative attempt) delivers exactly that many records from the same
 * start — the same records, however the server splits them into responses this time (invariant 1).
 *
 * <p>Positions are a token plus a count of records consumed after it ({@link ChannelPosition}), so
 * a batch may end in the middle of a server response; the responses and their positions are a
 * {@link ChannelReader}'s. Not thread-safe: one reader per channel.
 */
@Internal
public final class ChannelBatchReader {

    /** Consecutive empty responses a replay tolerates before it declares the channel diverged. */
    static final int REPLAY_EMPTY_READS_ALLOWED = 20;

    private final ChannelReader reader;
    private final ChannelCheckpoint start;
    private final long recordCap;
    private final boolean replay;
    private final long startNanos;
    private final long budgetNanos;
    private final LongSupplier nanoClock;
    private final IdleBackoff backoff;

    private boolean serverMayHaveMore = true;
    private long delivered;
    private int emptyReadsInARow;
    private SequenceInfo lastSequence = SequenceInfo.NONE;

    private ChannelBatchReader(
            TunnelPages pages,
            TunnelClientId client,
            ChannelCheckpoint start,
            long recordCap,
            boolean replay,
            long budgetNanos,
            LongSupplier nanoClock,
            IdleBackoff backoff) {
        this.reader =
                ChannelReader.from(pages, client, start.channelId(), start.position())
                        .readingAheadWithin(recordsWanted(start, recordCap));
        this.start = start;
        this.recordCap = recordCap;
        this.replay = replay;
        this.nanoClock = nanoClock;
        this.backoff = backoff;
        this.startNanos = nanoClock.getAsLong();
        this.budgetNanos = budgetNanos;
    }

    /** A first read of this channel in a batch, bounded by {@code limit}. */
    public static ChannelBatchReader firstRead(
            TunnelProxy proxy,
            TunnelClientId client,
            ChannelCheckpoint start,
            ChannelReadLimit limit,
            LongSupplier nanoClock) {
        return firstRead(TunnelPages.direct(proxy), client, start, limit, nanoClock);
    }

    /**
     * A first read of this channel in a batch, bounded by {@code limit}; pages are read ahead (when
     * {@code pages} do) until they hold the records the limit allows.
     */
    public static ChannelBatchReader firstRead(
            TunnelPages pages,
            TunnelClientId client,
            ChannelCheckpoint start,
            ChannelReadLimit limit,
            LongSupplier nanoClock) {
        return new ChannelBatchReader(
                pages,
                client,
                start,
                limit.maxRecords(),
                false,
                limit.timeBudget().toNanos(),
                nanoClock,
                IdleBackoff.NONE);
    }

    /**
     * A replay that delivers exactly {@code recordedEnd.batchRecords()} records from {@code start}.
     *
     * @param backoff waits between empty responses (the server may need a moment after a restart)
     */
    public static ChannelBatchReader replay(
            TunnelProxy proxy,
            TunnelClientId client,
            ChannelCheckpoint start,
            ChannelCheckpoint recordedEnd,
            IdleBackoff backoff) {
        return replay(TunnelPages.direct(proxy), client, start, recordedEnd, backoff);
    }

    /**
     * As {@link #replay(TunnelProxy, TunnelClientId, ChannelCheckpoint, ChannelCheckpoint,
     * IdleBackoff)}, reading from {@code pages}.
     */
    public static ChannelBatchReader replay(
            TunnelPages pages,
            TunnelClientId client,
            ChannelCheckpoint start,
            ChannelCheckpoint recordedEnd,
            IdleBackoff backoff) {
        return new ChannelBatchReader(
                pages,
                client,
                start,
                recordedEnd.batchRecords(),
                true,
                Long.MAX_VALUE,
                System::nanoTime,
                backoff);
    }

    /**
     * The records after the start token a batch may need (its cap plus the records its start
     * position skips); no page is read ahead past them.
     */
    private static long recordsWanted(ChannelCheckpoint start, long cap) {
        ChannelPosition from = start.position();
        long skip = from.isFinished() ? 0 : from.skip();
        return cap > Long.MAX_VALUE - skip ? Long.MAX_VALUE : cap + skip;
    }

    /** The next record of this batch, or empty when this channel's part of the batch is done. */
    public Optional<ChangeRecord> next() {
        return advance() ? Optional.of(current()) : Optional.empty();
    }

    /**
     * Moves to the next record of this batch and counts it as delivered; false when this channel's
     * part of the batch is done. The record is converted only if {@link #current()} or {@link
     * #visitCurrent} asks for it.
     */
    public boolean advance() {
        while (delivered < recordCap) {
            if (reader.advance()) {
                deliver();
                return true;
            }
            if (!fetchNextResponse()) {
                break;
            }
        }
        if (replay && delivered < recordCap) {
            throw diverged("the channel ended");
        }
        return false;
    }

    /** The record {@link #advance()} moved to; valid only after it returned true. */
    public ChangeRecord current() {
        requireCurrent();
        return reader.current();
    }

    /**
     * Passes the record {@link #advance()} moved to to {@code visitor}; valid only after it
     * returned true. A malformed record fails part way, so a visitor must discard what it got
     * before the exception.
     */
    public void visitCurrent(ChangeVisitor visitor) {
        requireCurrent();
        reader.visitCurrent(visitor);
    }

    private void requireCurrent() {
        if (delivered == 0) {
            throw new IllegalStateException("No current record: call advance() first");
        }
    }

    /** Records delivered so far. */
    public long delivered() {
        return delivered;
    }

    /**
     * Where the next batch resumes this channel: right after the last delivered record, or where
     * this read started if it made no request.
     */
    public ChannelPosition position() {
        return reader.position();
    }

    /** This channel's entry for the batch's end snapshot. */
    public ChannelCheckpoint endCheckpoint() {
        return start.advancedTo(position(), delivered, lastSequence);
    }

    private void deliver() {
        delivered++;
        SequenceInfo sequence = reader.currentSequence();
        if (sequence.isPresent()) {
            lastSequence = sequence;
        }
    }

    /** Loads the next response, discarding already-consumed records; false when reading stops. */
    private boolean fetchNextResponse() {
        while (true) {
            if (reader.isFinished() || !mayAskServer()) {
                return false;
            }
            ChannelResponse response = reader.readResponse();
            serverMayHaveMore = response.mayMoreRecord();
            if (response.hasRecords()) {
                emptyReadsInARow = 0;
                return true;
            }
            if (!noteEmptyRead(response)) {
                return false;
            }
        }
    }

    private boolean mayAskServer() {
        if (replay) {
            return true;
        }
        return serverMayHaveMore && nanoClock.getAsLong() - startNanos < budgetNanos;
    }

    /** After a response with nothing to deliver: whether to ask again. */
    private boolean noteEmptyRead(ChannelResponse response) {
        if (response.size() > 0) {
            return true; // everything in it was skipped; the next response continues
        }
        if (!replay) {
            return serverMayHaveMore; // an empty answer that says "maybe more": ask again
        }
        if (++emptyReadsInARow > REPLAY_EMPTY_READS_ALLOWED) {
            throw diverged(
                    "the server returned no records " + emptyReadsInARow + " times in a row");
        }
        backoff.pause(emptyReadsInARow);
        return true;
    }

    private ReplayDivergedException diverged(String why) {
        return new ReplayDivergedException(
                "Replay of channel "
                        + start.channelId()
                        + " from "
                        + start.position()
                        + " delivered "
                        + delivered
                        + " of the "
                        + recordCap
                        + " records its first run read, because "
                        + why
                        + ". The tunnel no longer serves the records this batch was built from"
                        + " (stream data past retention, or the tunnel was re-created): restart"
                        + " the query or job from a new checkpoint after checking what the sink"
                        + " holds.");
    }

    /** How long to wait after the n-th empty response in a row of a replay. */
    @FunctionalInterface
    public interface IdleBackoff {
        IdleBackoff NONE = attempt -> {};

        void pause(int attempt);

        /** Exponential backoff from 10 ms up to 1 s. */
        static IdleBackoff exponential() {
            return attempt -> {
                try {
                    Thread.sleep(Math.min(1000L, 10L << Math.min(attempt, 7)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while replaying a batch", e);
                }
            };
        }
    }
}
