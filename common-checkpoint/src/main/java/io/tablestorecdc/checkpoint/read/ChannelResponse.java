package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import java.util.Objects;

/**
 * One server response of one channel as a reader takes it: the records {@link #first()} (inclusive)
 * to {@link #end()} (exclusive) are new, those before were consumed before (a batch or checkpoint
 * ended inside an earlier response from the same token) and those from {@link #end()} on lie after
 * the reader's stop position. Each record's position follows {@link ResponsePositions}.
 *
 * <p>Immutable in what it says; its records are decoded when asked for, by one thread at a time (an
 * engine may hand the response to another thread once the reader is done with it).
 */
@Internal
public final class ChannelResponse {

    private final String channelId;
    private final ChannelPosition from;
    private final RecordPage page;
    private final ChannelPosition next;
    private final boolean mayMoreRecord;
    private final int first;
    private final int end;

    private ChannelResponse(
            String channelId, ChannelPosition from, ReadResult result, int first, int end) {
        this.channelId = channelId;
        this.from = from;
        this.page = result.page();
        this.next = result.next();
        this.mayMoreRecord = result.mayMoreRecord();
        this.first = first;
        this.end = end;
    }

    /**
     * The response {@code result} read from {@code from}, ending before its first record committed
     * after {@code stopAfterMicros} (records without a commit time never end it).
     */
    public static ChannelResponse of(
            String channelId, ChannelPosition from, ReadResult result, long stopAfterMicros) {
        Objects.requireNonNull(channelId, "channelId");
        RecordPage page = result.page();
        int first = ResponsePositions.alreadyConsumed(from, page.size());
        int end = page.size();
        if (stopAfterMicros != Long.MAX_VALUE) {
            for (int i = first; i < end; i++) {
                if (page.sequence(i).timestampMicros() > stopAfterMicros) {
                    end = i;
                    break;
                }
            }
        }
        return new ChannelResponse(channelId, from, result, first, end);
    }

    public String channelId() {
        return channelId;
    }

    /** The first new record's index. */
    public int first() {
        return first;
    }

    /** The index after the last record to take: the page's size, or the first one past the stop. */
    public int end() {
        return end;
    }

    /** Whether it holds records to take. */
    public boolean hasRecords() {
        return first < end;
    }

    /** The records the server sent, consumed before or not. */
    public int size() {
        return page.size();
    }

    /** Whether the channel stops in it: a record lies after the stop position. */
    public boolean reachedStop() {
        return end < page.size();
    }

    /** Whether the server said it may have more records right now. */
    public boolean mayMoreRecord() {
        return mayMoreRecord;
    }

    /** The commit time of the newest record the server sent, 0 when none (or none carried one). */
    public long newestCommitMicros() {
        return page.size() == 0 ? 0 : page.sequence(page.size() - 1).timestampMicros();
    }

    /** Where reading stands before record {@code index}; {@code end()} is where it stops. */
    public ChannelPosition positionBefore(int index) {
        return ResponsePositions.before(from, index, page.size(), next);
    }

    /** Where reading resumes once record {@code index} is taken. */
    public ChannelPosition positionAfter(int index) {
        return positionBefore(index + 1);
    }

    /** The record at {@code index}, materialised (for a consumer that needs the object). */
    public ChangeRecord record(int index) {
        return page.record(index);
    }

    /** The ordering of the record at {@code index}, without decoding the rest of it. */
    public SequenceInfo sequence(int index) {
        return page.sequence(index);
    }

    /**
     * Passes the record at {@code index} to {@code visitor}. A malformed record fails part way, so
     * a visitor must discard what it got before the exception.
     */
    public void visit(int index, ChangeVisitor visitor) {
        page.visit(index, visitor);
    }

    @Override
    public String toString() {
        return "ChannelResponse["
                + channelId
                + " from "
                + from
                + ", records "
                + first
                + ".."
                + end
                + " of "
                + page.size()
                + ", next "
                + next
                + "]";
    }
}
