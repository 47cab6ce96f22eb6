package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.read.ChannelResponse;
import org.apache.flink.annotation.Internal;

/**
 * One change of a channel response as the split reader hands it to the emitter: the response and
 * the record's index in it, decoded only when the emitter asks (into its writer, or as a {@link
 * ChangeRecord} for a deserializer without one), with the position right after it, so that the
 * emitter advances the split state record by record (a checkpoint may fall between any two).
 *
 * <p>A view moved along its response ({@link ResponseRecords} hands out one instance per response):
 * valid until the next record of the same response is asked for. Flink's source reader emits each
 * record before it asks for the next and keeps none, so nothing holds a moved view.
 */
@Internal
public final class ChannelRecord {

    private final ChannelResponse response;
    private int index;

    ChannelRecord(ChannelResponse response, int index) {
        this.response = response;
        this.index = index;
    }

    void moveTo(int next) {
        index = next;
    }

    public String channelId() {
        return response.channelId();
    }

    /** Where reading resumes once this change is emitted. */
    public ChannelPosition positionAfter() {
        return response.positionAfter(index);
    }

    /** The change's commit time, 0 for base data; the rest of the change is not decoded. */
    public long commitTimestampMicros() {
        return response.sequence(index).timestampMicros();
    }

    /**
     * Passes the change to {@code visitor}, part by part. A malformed record fails part way, so the
     * visitor discards what it got before the exception.
     */
    public void visit(ChangeVisitor visitor) {
        response.visit(index, visitor);
    }

    /** The change, materialised afresh on each call. */
    public ChangeRecord record() {
        return response.record(index);
    }

    @Override
    public String toString() {
        return "ChannelRecord[" + index + " of " + response + "]";
    }
}
