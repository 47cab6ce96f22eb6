package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.MetaRowFormat.BATCH_LOG;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and deletes every row one tunnel has in the meta table, of every kind: what an operator
 * sees of a consumer and removes when it is gone for good.
 */
final class TunnelCensus {

    private static final Logger LOG = LoggerFactory.getLogger(TunnelCensus.class);

    private final MetaRequests requests;
    private final KnownSnapshots known;

    TunnelCensus(MetaRequests requests, KnownSnapshots known) {
        this.requests = requests;
        this.known = known;
    }

    TunnelRows rows(String tunnelId) {
        return census(tunnelId).rows();
    }

    TunnelRows delete(String tunnelId) {
        Census census = census(tunnelId);
        List<MetaRowKey> keys = census.keys();
        for (int from = 0; from < keys.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            requests.client()
                    .deleteAll(
                            keys.subList(
                                    from,
                                    Math.min(keys.size(), from + MetaTableClient.MAX_BATCH_ROWS)));
        }
        census.log().forEach(b -> known.forget(tunnelId, b.token()));
        LOG.info("Deleted {} rows of tunnel {}", keys.size(), tunnelId);
        return census.rows();
    }

    /** A tunnel's rows, with their keys in deletion order. */
    private record Census(TunnelRows rows, List<MetaRowKey> keys, List<LoggedBatch> log) {}

    private Census census(String tunnelId) {
        MetaTableClient client = requests.client();
        List<LoggedBatch> log = requests.batchLog(tunnelId);
        List<MetaRow> snapshotRows = new ArrayList<>();
        for (LoggedBatch batch : log) {
            snapshotRows.addAll(requests.readAll(tunnelId, batch.token().toString()));
        }
        List<MetaRow> adoptions = requests.readAll(tunnelId, MetaRowFormat.ADOPTIONS);
        List<MetaRow> ownerRows = new ArrayList<>();
        client.get(MetaRowFormat.ownerKey(tunnelId)).ifPresent(ownerRows::add);
        client.get(MetaRowFormat.clientKey(tunnelId)).ifPresent(ownerRows::add);
        client.get(MetaRowFormat.progressKey(tunnelId)).ifPresent(ownerRows::add);
        List<MetaRow> logRows = requests.readAll(tunnelId, BATCH_LOG);
        List<MetaRow> all = new ArrayList<>(snapshotRows);
        all.addAll(adoptions);
        all.addAll(ownerRows);
        all.addAll(logRows); // last: an interrupted delete still finds the snapshots
        long bytes = all.stream().mapToLong(TunnelCensus::rowBytes).sum();
        TunnelRows rows =
                new TunnelRows(
                        tunnelId,
                        log.size(),
                        snapshotRows.size(),
                        logRows.size(),
                        adoptions.size(),
                        ownerRows.size(),
                        bytes);
        return new Census(rows, all.stream().map(MetaRow::key).toList(), log);
    }

    /** A row's approximate stored size: its key, column names and values (integers 8 bytes). */
    static long rowBytes(MetaRow row) {
        long bytes =
                utf8(row.key().tunnelId()) + utf8(row.key().batch()) + utf8(row.key().channelId());
        for (Map.Entry<String, MetaValue> column : row.columns().entrySet()) {
            bytes += utf8(column.getKey());
            bytes += column.getValue() instanceof MetaValue.Text text ? utf8(text.value()) : 8L;
        }
        return bytes;
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
