package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The rows of one tunnel in the meta table, as its consumer reads and writes them: batch snapshots
 * under batch tokens, first-writer-wins fills, retention, adoptions, the recorded tunnel client,
 * the catch-up report and the owner lease. Obtained from {@link MetaTable#tunnel(String)}; every
 * row it touches is under its tunnel id. Thread-safe.
 */
@Internal
public final class TunnelMeta {

    /** Snapshots one {@link #purge(int)} call deletes at most, to bound its requests. */
    public static final int DEFAULT_MAX_SNAPSHOTS_PER_PURGE = 16;

    /** About half the service's 4 MB limit of one batch write, leaving room for its encoding. */
    private static final long MAX_WRITE_BYTES = 2L << 20;

    private final String tunnelId;
    private final SnapshotWriter writer;
    private final SnapshotReader reader;
    private final Retention retention;
    private final ConsumerRecords records;

    TunnelMeta(
            String tunnelId,
            SnapshotWriter writer,
            SnapshotReader reader,
            Retention retention,
            ConsumerRecords records) {
        this.tunnelId = tunnelId;
        this.writer = writer;
        this.reader = reader;
        this.retention = retention;
        this.records = records;
    }

    /** The tunnel whose rows these are. */
    public String tunnelId() {
        return tunnelId;
    }

    // ---- snapshots ---------------------------------------------------------------------------

    /**
     * Writes a complete snapshot in full: the first token of a stream, or a snapshot that carries
     * every channel forward. Re-writing the same snapshot is a no-op; a different one fails.
     */
    public void seed(BatchSnapshot snapshot, long batchSequence) {
        write(snapshot, batchSequence, Optional.empty());
    }

    /**
     * Writes a complete snapshot, as a delta over the base of the snapshot {@code after} when that
     * is cheaper (see {@link #carryForward(BatchToken, long, Optional, Collection, Collection)});
     * {@code after} is the snapshot this consumer wrote before, if it knows one.
     */
    public void write(BatchSnapshot snapshot, long batchSequence, Optional<BatchToken> after) {
        if (!snapshot.tunnelId().equals(tunnelId)) {
            throw new IllegalArgumentException(
                    "The snapshot of batch token "
                            + snapshot.token()
                            + " belongs to tunnel "
                            + snapshot.tunnelId()
                            + ", not to tunnel "
                            + tunnelId
                            + " whose meta rows are written here");
        }
        writer.write(snapshot, batchSequence, after);
    }

    /**
     * As {@link #carryForward(BatchToken, long, Optional, Collection, Collection)}, writing the
     * snapshot in full.
     */
    public void carryForward(
            BatchToken token,
            long batchSequence,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        carryForward(token, batchSequence, Optional.empty(), manifestChannels, carried);
    }

    /**
     * Declares the snapshot of {@code token} and writes the entries of the channels not read in the
     * batch ending there. The manifest lists every channel the snapshot must hold ({@code carried}
     * plus the channels readers will {@link #fill}). Deterministic re-planning writes the same
     * rows, which is a no-op; a different manifest or entry fails with {@link
     * ConflictingSnapshotException}.
     *
     * <p>When {@code after} (the committed snapshot the batch starts from) is given, the snapshot
     * is written as a <em>delta</em> over {@code after}'s base (or over {@code after} itself when
     * that is full): only the entries that differ from the base's carried forward, and the channels
     * readers fill, are written; every other channel takes the base's entry when the snapshot is
     * {@link #read}. It is written in full instead when it would be {@code fullSnapshotEvery}
     * batches past its base, when the delta would hold more than half the channels, or when the
     * base cannot be read. The choice depends only on the rows of {@code after} and its base, so
     * re-planning decides the same way.
     *
     * @param batchSequence the engine's batch number (Spark batch id, Flink checkpoint id)
     * @param after the committed snapshot the batch starts from; empty to write in full
     * @param manifestChannels every channel of the snapshot
     * @param carried entries written now; each must be listed in {@code manifestChannels}
     */
    public void carryForward(
            BatchToken token,
            long batchSequence,
            Optional<BatchToken> after,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        writer.carryForward(token, batchSequence, after, manifestChannels, carried);
    }

    /**
     * The rows {@link #carryForward(BatchToken, long, Optional, Collection, Collection)} would
     * write, chosen the same way, not yet written: a source of many tables writes every table's
     * snapshot of a batch together with {@link #writeAll}. Reads the rows the choice of a delta
     * depends on; writes nothing.
     */
    public PreparedSnapshot prepare(
            BatchToken token,
            long batchSequence,
            Optional<BatchToken> after,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        return writer.prepare(token, batchSequence, after, manifestChannels, carried);
    }

    /**
     * As {@link #prepare(BatchToken, long, Optional, Collection, Collection)}, with the adoption
     * records of {@code adopted} ({@link #recordAdoptions}) written first, before the snapshot.
     */
    public PreparedSnapshot prepare(
            BatchToken token,
            long batchSequence,
            Optional<BatchToken> after,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried,
            Collection<ChannelCheckpoint> adopted) {
        List<MetaRow> adoptions = new ArrayList<>(adopted.size());
        adopted.forEach(c -> adoptions.add(MetaRowFormat.adoptionRow(tunnelId, c)));
        return prepare(token, batchSequence, after, manifestChannels, carried)
                .withAdoptions(List.copyOf(adoptions));
    }

    /**
     * Writes the snapshots of many tunnels in shared requests, in the order each is written alone:
     * every adoption record (put-if-absent, written once), every batch log row, then every
     * manifest, then every carried entry, each step in put-if-absent batch writes of at most {@link
     * MetaTableClient#MAX_BATCH_ROWS} rows (and about 2 MB). A row that already exists must be the
     * same as the one prepared (a re-planned batch), otherwise {@link
     * ConflictingSnapshotException}, as for one snapshot. The caller fences the writes: it checks
     * every tunnel's lease before (see {@code TunnelConsumer#writeAll}).
     *
     * @param client the client of the meta table every snapshot belongs to, written through as is
     */
    public static void writeAll(MetaTableClient client, List<PreparedSnapshot> snapshots) {
        List<MetaRow> adoptions = new ArrayList<>();
        List<MetaRow> logs = new ArrayList<>();
        List<MetaRow> manifests = new ArrayList<>();
        List<MetaRow> entries = new ArrayList<>();
        List<PreparedSnapshot> entryOwners = new ArrayList<>();
        for (PreparedSnapshot s : snapshots) {
            adoptions.addAll(s.adoptionRows());
            logs.add(s.logRow());
            manifests.add(s.manifestRow());
            for (MetaRow entry : s.entryRows()) {
                entries.add(entry);
                entryOwners.add(s);
            }
        }
        putAll(client, adoptions); // an adoption already recorded stays as it was
        putAll(client, logs);
        List<PutOutcome> declared = putAll(client, manifests);
        for (int i = 0; i < snapshots.size(); i++) {
            if (declared.get(i) != PutOutcome.WRITTEN) {
                snapshots.get(i).writer().requireSameManifest(snapshots.get(i));
            }
        }
        List<PutOutcome> carried = putAll(client, entries);
        Map<PreparedSnapshot, List<MetaRow>> conflicts = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            if (carried.get(i) == PutOutcome.ALREADY_EXISTS) {
                conflicts
                        .computeIfAbsent(entryOwners.get(i), s -> new ArrayList<>())
                        .add(entries.get(i));
            }
        }
        conflicts.forEach((s, rows) -> s.writer().requireSameEntries(s.token(), rows));
        snapshots.forEach(s -> s.writer().written(s));
    }

    /**
     * Puts {@code rows} if absent in as few batch writes as the limits allow; outcomes in order.
     */
    private static List<PutOutcome> putAll(MetaTableClient client, List<MetaRow> rows) {
        return inBatches(rows, r -> r, client::putAllIfAbsent);
    }

    /**
     * {@code write} over {@code items} in as few batch writes as the limits allow (at most {@link
     * MetaTableClient#MAX_BATCH_ROWS} rows, about {@link #MAX_WRITE_BYTES}, each); outcomes in
     * order.
     */
    private static <T, R> List<R> inBatches(
            List<T> items, Function<T, MetaRow> rowOf, Function<List<T>, List<R>> write) {
        List<R> outcomes = new ArrayList<>(items.size());
        int from = 0;
        while (from < items.size()) {
            int to = from;
            long bytes = 0;
            while (to < items.size() && to - from < MetaTableClient.MAX_BATCH_ROWS) {
                long next = approximateBytes(rowOf.apply(items.get(to)));
                if (to > from && bytes + next > MAX_WRITE_BYTES) {
                    break;
                }
                bytes += next;
                to++;
            }
            outcomes.addAll(write.apply(items.subList(from, to)));
            from = to;
        }
        return outcomes;
    }

    /**
     * Writes the catch-up reports of many tunnels in shared requests, as {@link #reportProgress}
     * writes one: each replaces its tunnel's report row where the row holds a report of the same
     * holder, and the reports whose row does not exist yet (a first report) then create it. Not
     * fenced: the caller checks the leases first.
     *
     * @return per report, in order, whether it was written; one that was not (its row holds an
     *     earlier run's report, or changed meanwhile) goes through {@link #reportProgress} of its
     *     tunnel
     */
    public static List<Boolean> reportAll(
            MetaTableClient client, List<Map.Entry<TunnelMeta, ConsumerProgress>> reports) {
        List<MetaTableClient.ConditionalReplace> replaces = new ArrayList<>(reports.size());
        for (Map.Entry<TunnelMeta, ConsumerProgress> report : reports) {
            ConsumerProgress progress = report.getValue();
            replaces.add(
                    new MetaTableClient.ConditionalReplace(
                            MetaRowFormat.progressRow(report.getKey().tunnelId(), progress),
                            MetaRowFormat.COL_LEASE_HOLDER,
                            MetaValue.text(progress.holder())));
        }
        List<Boolean> written =
                new ArrayList<>(
                        inBatches(
                                replaces,
                                MetaTableClient.ConditionalReplace::row,
                                client::replaceAllIf));
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            if (!written.get(i)) {
                missing.add(i);
            }
        }
        List<PutOutcome> created =
                putAll(client, missing.stream().map(i -> replaces.get(i).row()).toList());
        for (int m = 0; m < missing.size(); m++) {
            written.set(missing.get(m), created.get(m) == PutOutcome.WRITTEN);
        }
        return written;
    }

    private static long approximateBytes(MetaRow row) {
        long bytes =
                row.key().tunnelId().length()
                        + row.key().batch().length()
                        + row.key().channelId().length();
        for (Map.Entry<String, MetaValue> c : row.columns().entrySet()) {
            bytes += c.getKey().length() + 16;
            if (c.getValue() instanceof MetaValue.Text text) {
                bytes += text.value().length();
            }
        }
        return bytes;
    }

    /**
     * Records where a reader's part of the batch ended for one channel. The first writer wins: an
     * identical second fill returns normally, a different one throws {@link
     * ConflictingFillException} (the task must then be retried as a replay).
     */
    public void fill(BatchToken token, ChannelCheckpoint end) {
        writer.fill(token, end);
    }

    /**
     * {@link #fill} for many channels of one batch in as few requests as possible (put-if-absent
     * batch writes of at most {@link MetaTableClient#MAX_BATCH_ROWS} rows). The first writer wins
     * per row: a row already holding the same entry is fine, a different one throws {@link
     * ConflictingFillException} (the task must then be retried as a replay). Rows written before a
     * conflict stay: each is a correct first write of its own channel.
     */
    public void fillAll(BatchToken token, List<ChannelCheckpoint> ends) {
        writer.fillAll(token, ends);
    }

    /**
     * One channel's entry under {@code token}, if a reader already filled it (or it was carried
     * forward). Tells a reader whether its part of a batch was read before: then it must replay to
     * exactly that end instead of reading afresh (invariant 1).
     */
    public Optional<ChannelCheckpoint> entry(BatchToken token, String channelId) {
        return reader.entry(token, channelId);
    }

    /**
     * The entries under {@code token} of those of {@code channelIds} that have one, by channel id:
     * {@link #entry} for many channels with range reads from the smallest id to the largest (one
     * request when the ids are close in key order, as a reader's group of channels is).
     */
    public Map<String, ChannelCheckpoint> entries(BatchToken token, Collection<String> channelIds) {
        return reader.entries(token, channelIds);
    }

    /**
     * Reads the complete snapshot of {@code token}: one range read for a full snapshot, two for a
     * delta (its own rows and its base's, unless the base is in memory), whatever the history.
     * Channels a delta holds no entry for take their base's entry, carried forward.
     *
     * @throws SnapshotNotFoundException when no row of the snapshot (or of its base) exists
     * @throws IncompleteSnapshotException when entries the manifest lists are missing
     * @throws MetaFormatException when a row is of a newer format or malformed
     */
    public BatchSnapshot read(BatchToken token) {
        return reader.read(token);
    }

    /**
     * {@link #read} of the snapshots of many tunnels, each of its handle, with batch reads shared
     * across tunnels (at most {@link MetaTableClient#MAX_BATCH_GET_ROWS} rows each) where the
     * handle knows the snapshot's manifest (a snapshot it wrote or read before); the others are
     * read one by one, as {@link #read} does. A source of many tables reads the ends its readers
     * filled this way, in requests that grow with the channels read, not with the tables.
     *
     * @param client the client of the meta table every tunnel's rows are in, read through as is
     * @throws SnapshotNotFoundException as {@link #read}
     * @throws IncompleteSnapshotException as {@link #read}
     */
    public static Map<TunnelMeta, BatchSnapshot> readAll(
            MetaTableClient client, Map<TunnelMeta, BatchToken> snapshots) {
        Map<TunnelMeta, List<MetaRowKey>> keysOf = new LinkedHashMap<>();
        List<MetaRowKey> keys = new ArrayList<>();
        snapshots.forEach(
                (tunnel, token) ->
                        tunnel.reader
                                .knownEntryKeys(token)
                                .ifPresent(
                                        k -> {
                                            keysOf.put(tunnel, k);
                                            keys.addAll(k);
                                        }));
        Map<MetaRowKey, MetaRow> rows = new HashMap<>();
        for (int from = 0; from < keys.size(); from += MetaTableClient.MAX_BATCH_GET_ROWS) {
            List<MetaRowKey> chunk =
                    keys.subList(
                            from, Math.min(keys.size(), from + MetaTableClient.MAX_BATCH_GET_ROWS));
            client.getAll(chunk).forEach(row -> row.ifPresent(r -> rows.put(r.key(), r)));
        }
        Map<TunnelMeta, BatchSnapshot> read = new LinkedHashMap<>();
        snapshots.forEach(
                (tunnel, token) -> {
                    List<MetaRowKey> own = keysOf.get(tunnel);
                    if (own == null) {
                        read.put(tunnel, tunnel.read(token));
                        return;
                    }
                    List<MetaRow> found = new ArrayList<>(own.size());
                    own.stream().map(rows::get).filter(Objects::nonNull).forEach(found::add);
                    read.put(tunnel, tunnel.reader.assembleKnown(token, found));
                });
        return read;
    }

    /**
     * The newest snapshot of the tunnel that reads back complete, by write time then batch
     * sequence; empty when none does. A snapshot planned but not yet filled is skipped, so this is
     * where the consumer's newest finished batch left every channel (the engine may not have
     * committed it yet).
     */
    public Optional<BatchSnapshot> newestSnapshot() {
        return reader.newestSnapshot();
    }

    /** The tunnel's batch log, oldest first. */
    public List<LoggedBatch> batchLog() {
        return reader.batchLog();
    }

    // ---- retention ---------------------------------------------------------------------------

    /**
     * Deletes old snapshots, keeping every snapshot of the newest {@code keepLastBatches} batch
     * sequences and every base a kept snapshot names (invariant 7); deletes at most {@link
     * #DEFAULT_MAX_SNAPSHOTS_PER_PURGE} snapshots. A base is deleted only after every delta over
     * it, so an interrupted purge never leaves a delta without its base.
     */
    public PurgeResult purge(int keepLastBatches) {
        return purge(keepLastBatches, DEFAULT_MAX_SNAPSHOTS_PER_PURGE);
    }

    /** As {@link #purge(int)}, deleting at most {@code maxSnapshots} snapshots. */
    public PurgeResult purge(int keepLastBatches, int maxSnapshots) {
        return retention.purge(keepLastBatches, maxSnapshots);
    }

    // ---- the consumer's records --------------------------------------------------------------

    /**
     * Records the first position at which this consumer adopted each channel, once per channel and
     * independently of any snapshot (invariant 5). An engine restored from an older checkpoint or
     * savepoint finds here where to restart a channel that its snapshot does not know yet, instead
     * of trusting a server checkpoint that may run ahead of what it committed. Later adoptions of a
     * channel already recorded change nothing.
     */
    public void recordAdoptions(Collection<ChannelCheckpoint> adopted) {
        records.recordAdoptions(adopted);
    }

    /** Where this consumer first adopted each channel of the tunnel, by channel id. */
    public Map<String, ChannelPosition> adoptions() {
        return records.adoptions();
    }

    /**
     * Records the id of the tunnel client the tunnel's owner has just connected. Call it only while
     * holding the owner lease (invariant 8), so that one writer changes this row at a time.
     */
    public void recordTunnelClient(String clientId) {
        records.recordTunnelClient(clientId);
    }

    /**
     * The tunnel client the tunnel's previous owner last connected, if any. A new owner shuts it
     * down before connecting its own, so that the server releases the channels of a crashed
     * predecessor at once instead of after its heartbeat timeout.
     */
    public Optional<String> lastTunnelClient() {
        return records.lastTunnelClient();
    }

    /**
     * Writes the consumer's catch-up report, replacing the one before it. One conditional write
     * while the row holds this holder's report; a report of an earlier run is replaced after
     * reading it.
     *
     * @return false when another writer changed the row meanwhile (the report was not written; the
     *     next one tries again)
     */
    public boolean reportProgress(ConsumerProgress progress) {
        return records.reportProgress(progress);
    }

    /** The consumer's newest catch-up report, if one was written. */
    public Optional<ConsumerProgress> progress() {
        return records.progress();
    }

    // ---- the owner lease ---------------------------------------------------------------------

    /**
     * Makes {@code consumerId} the owner of the tunnel (invariant 8). Succeeds when there is no
     * owner, the owner is the same consumer id (a restart of the same query or job), or the owner's
     * lease has expired.
     *
     * @throws OwnershipConflictException when another consumer holds a live lease
     */
    public OwnerLease acquireOwnership(String consumerId, long leaseMillis) {
        return records.acquireOwnership(consumerId, leaseMillis);
    }

    /**
     * Extends the lease by {@code leaseMillis} from now.
     *
     * @throws OwnershipLostException when another consumer has taken the tunnel over
     */
    public OwnerLease renewOwnership(OwnerLease lease, long leaseMillis) {
        return records.renewOwnership(lease, leaseMillis);
    }

    /**
     * Gives the tunnel up so that another consumer may start at once.
     *
     * @return false when the lease had already been taken over (nothing was changed)
     */
    public boolean releaseOwnership(OwnerLease lease) {
        return records.releaseOwnership(lease);
    }

    /** The tunnel's current lease, if any consumer holds one (expired or not). */
    public Optional<OwnerLease> owner() {
        return records.owner();
    }
}
