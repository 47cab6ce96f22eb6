package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The readers' side of the batches of many tunnels that share one meta table: the ends already
 * recorded for channels of several tunnels, looked up together, and the ends of channels read
 * afresh, filled together. What {@link TunnelMeta#entries} and {@link TunnelMeta#fillAll} do for
 * one tunnel, in requests shared by every tunnel a reader's task holds (a source of many tables
 * gives one task the channels of many tables).
 */
@Internal
public final class BatchFills {

    /** One channel of one tunnel's batch. */
    public record Key(String tunnelId, BatchToken token, String channelId) {}

    /** Where one channel of one tunnel's batch ended. */
    public record End(String tunnelId, BatchToken token, ChannelCheckpoint end) {}

    private final MetaTableClient client;
    private final MetaRequests requests;

    /**
     * @param client the meta table's client, read and written through as is
     */
    public BatchFills(MetaTableClient client) {
        this(new MetaRequests(client, Optional.empty()));
    }

    BatchFills(MetaRequests requests) {
        this.client = requests.client();
        this.requests = requests;
    }

    /**
     * The recorded ends of those of {@code keys} that have one (batch reads of at most {@link
     * MetaTableClient#MAX_BATCH_GET_ROWS} rows): a channel with an end was read before in this
     * batch, and a reader must replay it to exactly that end (invariant 1).
     */
    public Map<Key, ChannelCheckpoint> recorded(List<Key> keys) {
        Map<Key, ChannelCheckpoint> found = new HashMap<>();
        for (int from = 0; from < keys.size(); from += MetaTableClient.MAX_BATCH_GET_ROWS) {
            List<Key> chunk =
                    keys.subList(
                            from, Math.min(keys.size(), from + MetaTableClient.MAX_BATCH_GET_ROWS));
            List<MetaRowKey> rowKeys = new ArrayList<>(chunk.size());
            chunk.forEach(
                    k ->
                            rowKeys.add(
                                    MetaRowFormat.entryKey(
                                            k.tunnelId(), k.token(), k.channelId())));
            List<Optional<MetaRow>> rows = client.getAll(rowKeys);
            for (int i = 0; i < chunk.size(); i++) {
                Optional<MetaRow> row = rows.get(i);
                if (row.isPresent()) {
                    found.put(chunk.get(i), requests.format().entry(row.get()));
                }
            }
        }
        return found;
    }

    /**
     * Records the ends (put-if-absent batch writes of at most {@link
     * MetaTableClient#MAX_BATCH_ROWS} rows). The first writer wins per row: a row already holding
     * the same end is fine, a different one throws {@link ConflictingFillException} (the task must
     * then be retried as a replay). Rows written before a conflict stay: each is a correct first
     * write of its own channel.
     */
    public void fillAll(List<End> ends) {
        for (int from = 0; from < ends.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            List<End> chunk =
                    ends.subList(
                            from, Math.min(ends.size(), from + MetaTableClient.MAX_BATCH_ROWS));
            List<MetaRow> rows = new ArrayList<>(chunk.size());
            chunk.forEach(e -> rows.add(MetaRowFormat.entryRow(e.tunnelId(), e.token(), e.end())));
            List<PutOutcome> outcomes = client.putAllIfAbsent(rows);
            for (int i = 0; i < rows.size(); i++) {
                if (outcomes.get(i) != PutOutcome.WRITTEN) {
                    End mine = chunk.get(i);
                    ChannelCheckpoint recorded =
                            requests.format().entry(requests.getExisting(rows.get(i).key()));
                    if (!recorded.equals(mine.end())) {
                        throw new ConflictingFillException(
                                mine.tunnelId(), mine.token(), recorded, mine.end());
                    }
                }
            }
        }
    }
}
