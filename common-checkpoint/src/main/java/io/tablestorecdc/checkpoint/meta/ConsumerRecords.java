package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one tunnel's consumer records besides its snapshots: where it first adopted each channel
 * (invariant 5), the tunnel client it connected, its catch-up report, and its owner lease
 * (invariant 8, kept by {@link Ownership}).
 */
final class ConsumerRecords {

    private final String tunnelId;
    private final MetaRequests requests;
    private final MetaTableClient client;
    private final MetaRowFormat format;
    private final Ownership ownership;

    ConsumerRecords(String tunnelId, MetaRequests requests, Ownership ownership) {
        this.tunnelId = tunnelId;
        this.requests = requests;
        this.client = requests.client();
        this.format = requests.format();
        this.ownership = ownership;
    }

    void recordAdoptions(Collection<ChannelCheckpoint> adopted) {
        List<MetaRow> rows = new ArrayList<>();
        adopted.forEach(c -> rows.add(MetaRowFormat.adoptionRow(tunnelId, c)));
        for (int from = 0; from < rows.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            int to = Math.min(rows.size(), from + MetaTableClient.MAX_BATCH_ROWS);
            client.putAllIfAbsent(rows.subList(from, to));
        }
    }

    Map<String, ChannelPosition> adoptions() {
        Map<String, ChannelPosition> adoptions = new HashMap<>();
        for (MetaRow row : requests.readAll(tunnelId, MetaRowFormat.ADOPTIONS)) {
            adoptions.put(row.key().channelId(), format.adoption(row));
        }
        return adoptions;
    }

    void recordTunnelClient(String clientId) {
        MetaRow row = MetaRowFormat.clientRow(tunnelId, clientId);
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return;
        }
        String previous = format.clientId(requests.getExisting(row.key()));
        if (!previous.equals(clientId)
                && !client.replaceIf(row, MetaRowFormat.COL_CLIENT_ID, MetaValue.text(previous))
                // A retried write whose first attempt landed fails its condition: read which.
                && !format.clientId(requests.getExisting(row.key())).equals(clientId)) {
            throw new MetaTableException(
                    "The tunnel client recorded for tunnel "
                            + tunnelId
                            + " in meta table "
                            + client.tableName()
                            + " changed while this consumer recorded its own: another consumer"
                            + " is writing this tunnel's rows. Stop it; only one consumer may own a"
                            + " tunnel.");
        }
    }

    Optional<String> lastTunnelClient() {
        return client.get(MetaRowFormat.clientKey(tunnelId)).map(format::clientId);
    }

    boolean reportProgress(ConsumerProgress progress) {
        MetaRow row = MetaRowFormat.progressRow(tunnelId, progress);
        if (client.replaceIf(
                row, MetaRowFormat.COL_LEASE_HOLDER, MetaValue.text(progress.holder()))) {
            return true;
        }
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return true;
        }
        Optional<MetaRow> stored = client.get(row.key());
        if (stored.isEmpty()) {
            return client.putIfAbsent(row) == PutOutcome.WRITTEN;
        }
        Optional<MetaValue> reported = stored.get().column(MetaRowFormat.COL_REPORTED_MS);
        return reported.isPresent()
                && client.replaceIf(row, MetaRowFormat.COL_REPORTED_MS, reported.get());
    }

    Optional<ConsumerProgress> progress() {
        return client.get(MetaRowFormat.progressKey(tunnelId)).map(format::progress);
    }

    OwnerLease acquireOwnership(String consumerId, long leaseMillis) {
        return ownership.acquire(tunnelId, consumerId, leaseMillis);
    }

    OwnerLease renewOwnership(OwnerLease lease, long leaseMillis) {
        return ownership.renew(requireOwn(lease), leaseMillis);
    }

    boolean releaseOwnership(OwnerLease lease) {
        return ownership.release(requireOwn(lease));
    }

    Optional<OwnerLease> owner() {
        return ownership.current(tunnelId);
    }

    private OwnerLease requireOwn(OwnerLease lease) {
        if (!lease.tunnelId().equals(tunnelId)) {
            throw new IllegalArgumentException(
                    "The owner lease of tunnel "
                            + lease.tunnelId()
                            + " was given to the meta rows of tunnel "
                            + tunnelId);
        }
        return lease;
    }
}
