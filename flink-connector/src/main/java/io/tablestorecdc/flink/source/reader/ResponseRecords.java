package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.read.ChannelResponse;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

/**
 * What one fetch hands to the source reader: the new records of at most one channel response, as
 * one {@link ChannelRecord} view moved from record to record, and the splits that ended.
 */
final class ResponseRecords implements RecordsWithSplitIds<ChannelRecord> {

    private final Optional<ChannelResponse> response;
    private final String splitId;
    private final Set<String> ended;
    private final ChannelRecord view;
    private boolean splitTaken;
    private int next;

    private ResponseRecords(Optional<ChannelResponse> response, String splitId, Set<String> ended) {
        this.response = response.filter(ChannelResponse::hasRecords);
        this.splitId = splitId;
        this.ended = ended;
        this.view = this.response.map(r -> new ChannelRecord(r, r.first())).orElse(null);
        this.next = this.response.map(ChannelResponse::first).orElse(0);
    }

    /** The records of {@code response}, and {@code ended} splits; the split is the channel's. */
    static ResponseRecords of(ChannelResponse response, Set<String> ended) {
        return of(response, response.channelId(), ended);
    }

    /** The records of {@code response} of split {@code splitId}, and {@code ended} splits. */
    static ResponseRecords of(ChannelResponse response, String splitId, Set<String> ended) {
        return new ResponseRecords(Optional.of(response), splitId, Set.copyOf(ended));
    }

    /** No records; {@code ended} splits. */
    static ResponseRecords ended(Set<String> ended) {
        return new ResponseRecords(Optional.empty(), null, Set.copyOf(ended));
    }

    @Override
    public String nextSplit() {
        if (splitTaken || response.isEmpty()) {
            return null;
        }
        splitTaken = true;
        return splitId;
    }

    @Override
    public ChannelRecord nextRecordFromSplit() {
        if (!splitTaken || response.isEmpty() || next >= response.get().end()) {
            return null;
        }
        view.moveTo(next++);
        return view;
    }

    @Override
    public Set<String> finishedSplits() {
        return ended;
    }
}
