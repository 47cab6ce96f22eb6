package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads one channel from a position, response by response, for both engines: the one reader whose
 * position arithmetic ({@link ResponsePositions}) decides which records a response adds and where
 * the channel stands after each (invariant 1).
 *
 * <p>Two ways to take records. Record by record: {@link #readResponse()}, then {@link #advance()}
 * until it returns false, with {@link #visitCurrent}, {@link #current()} and {@link #position()}
 * for the record taken last (Spark's batches, through {@link ChannelBatchReader}). Or a whole
 * response at once: {@link #takeResponse()}, whose {@link ChannelResponse} says each record's
 * position (Flink, one response per fetch). Either way {@link #position()} is right after the last
 * record taken, so the next response is read from there and a consumer may stop anywhere.
 *
 * <p>With a stop position ({@link #stoppingAfter}), the channel stops at its first record committed
 * after it, positioned right before that record; records without a commit time (base data) never
 * stop it. Not thread-safe: one reader per channel, used by one thread.
 */
@Internal
public final class ChannelReader {

    private final TunnelPages pages;
    private final TunnelClientId client;
    private final String channelId;
    private final ChannelPosition start;
    private long stopAfterMicros = Long.MAX_VALUE;
    private long readAheadWanted;
    private long recordsFetched;
    private Optional<ChannelResponse> response = Optional.empty();
    private int index;

    private ChannelReader(
            TunnelPages pages, TunnelClientId client, String channelId, ChannelPosition start) {
        this.pages = Objects.requireNonNull(pages, "pages");
        this.client = Objects.requireNonNull(client, "client");
        this.channelId = Objects.requireNonNull(channelId, "channelId");
        this.start = Objects.requireNonNull(start, "start");
    }

    /** A reader of {@code channelId} from {@code start}, without a stop position. */
    public static ChannelReader from(
            TunnelPages pages, TunnelClientId client, String channelId, ChannelPosition start) {
        return new ChannelReader(pages, client, channelId, start);
    }

    /**
     * Stops the channel at its first record committed after {@code stopAt} (an empty stop leaves it
     * unbounded). Set before the first read.
     */
    public ChannelReader stoppingAfter(Optional<Instant> stopAt) {
        this.stopAfterMicros =
                stopAt.map(t -> ChronoUnit.MICROS.between(Instant.EPOCH, t)).orElse(Long.MAX_VALUE);
        return this;
    }

    /**
     * After each response that says the server may have more, reads the following one ahead while
     * fewer than {@code records} records were fetched (counted from the start token, consumed
     * before or not). Set before the first read.
     */
    public ChannelReader readingAheadWithin(long records) {
        this.readAheadWanted = records;
        return this;
    }

    public String channelId() {
        return channelId;
    }

    /**
     * Asks the server once for the response at {@link #position()}; its records are then taken with
     * {@link #advance()}.
     *
     * @throws IllegalStateException when the channel is finished or stopped
     */
    public ChannelResponse readResponse() {
        ChannelPosition from = position();
        if (from.isFinished() || isStopped()) {
            throw new IllegalStateException(
                    "Channel " + channelId + " has nothing more to read at " + from);
        }
        ReadResult result = pages.read(client, channelId, from.token());
        ChannelResponse read = ChannelResponse.of(channelId, from, result, stopAfterMicros);
        response = Optional.of(read);
        index = read.first();
        recordsFetched += read.size();
        if (recordsFetched < readAheadWanted && result.mayMoreRecord() && !result.isFinished()) {
            pages.readAhead(client, channelId, result.next());
        }
        return read;
    }

    /** Reads the next response and takes all of its records: the position moves to its end. */
    public ChannelResponse takeResponse() {
        ChannelResponse read = readResponse();
        index = read.end();
        return read;
    }

    /** Takes the next record of the current response; false when it holds no more to take. */
    public boolean advance() {
        if (response.isPresent() && index < response.get().end()) {
            index++;
            return true;
        }
        return false;
    }

    /** Where the channel stands: right after the last record taken, or the start before a read. */
    public ChannelPosition position() {
        return response.isPresent() ? response.get().positionBefore(index) : start;
    }

    /** Whether the channel delivered its last record. */
    public boolean isFinished() {
        return position().isFinished();
    }

    /** Whether the channel reached its stop position (it is not read any further). */
    public boolean isStopped() {
        return response.isPresent()
                && response.get().reachedStop()
                && index == response.get().end();
    }

    /** The record {@link #advance()} took last, materialised. */
    public ChangeRecord current() {
        return response.get().record(currentIndex());
    }

    /** The ordering of the record {@link #advance()} took last. */
    public SequenceInfo currentSequence() {
        return response.get().sequence(currentIndex());
    }

    /**
     * Passes the record {@link #advance()} took last to {@code visitor}. A malformed record fails
     * part way, so a visitor must discard what it got before the exception.
     */
    public void visitCurrent(ChangeVisitor visitor) {
        response.get().visit(currentIndex(), visitor);
    }

    /** Starts reading the response at {@link #position()} in the background, if there is one. */
    public void readAhead() {
        if (!isStopped()) {
            pages.readAhead(client, channelId, position());
        }
    }

    private int currentIndex() {
        if (response.isEmpty() || index == response.get().first()) {
            throw new IllegalStateException("No current record: call advance() first");
        }
        return index - 1;
    }
}
