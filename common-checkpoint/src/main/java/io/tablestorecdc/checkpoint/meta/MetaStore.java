package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.MetaRowFormat.BATCH_LOG;
import static io.tablestorecdc.checkpoint.meta.MetaRowFormat.MANIFEST;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta table in the connector's terms: batch snapshots under batch tokens, first-writer-wins
 * fills, retention, and the tunnel's owner lease. The only code that reads or writes the meta
 * table; the row layout is {@link MetaRowFormat}'s and docs/meta-table.md's.
 */
public final class MetaStore {

    /** Snapshots one {@link #purge(String, int)} call deletes at most, to bound its requests. */
    public static final int DEFAULT_MAX_SNAPSHOTS_PER_PURGE = 16;

    /**
     * How often a full snapshot is written when nothing else forces one: a snapshot at this many
     * batches past its base is written in full ({@code meta.full.snapshot.every}).
     */
    public static final int DEFAULT_FULL_SNAPSHOT_EVERY = 64;

    /**
     * A delta holding entries for more than this share of a snapshot's channels is written in full
     * instead: it would cost nearly as many rows, and restarting the deltas from it keeps the next
     * ones small.
     */
    static final double MAX_DELTA_SHARE = 0.5;

    private static final Logger LOG = LoggerFactory.getLogger(MetaStore.class);

    private static final String SECOND_WRITER_HINT =
            "A batch must be planned the same way every time. This usually means a second consumer"
                    + " writes under the same tunnel in this meta table: stop it, or give each"
                    + " query/job its own tunnel.";

    private final MetaTableClient client;
    private final Clock clock;
    private final MetaRowFormat format;
    private final Ownership ownership;
    private final int fullSnapshotEvery;
    private final KnownSnapshots known = new KnownSnapshots();
    private final Optional<Executor> parallelRequests;
    private final int rowsPerReadSlice;

    /** Most key slices one snapshot read is split into. */
    static final int MAX_READ_SLICES = 4;

    /** Fewest rows a read slice covers: smaller snapshots are read in one go. */
    static final int DEFAULT_ROWS_PER_READ_SLICE = 256;

    public MetaStore(MetaTableClient client) {
        this(client, Clock.systemUTC());
    }

    public MetaStore(MetaTableClient client, Clock clock) {
        this(client, clock, DEFAULT_FULL_SNAPSHOT_EVERY);
    }

    /**
     * @param fullSnapshotEvery a snapshot this many batches past its base is written in full; 1
     *     writes every snapshot in full (format 1's cost, still written as format 2)
     */
    public MetaStore(MetaTableClient client, Clock clock, int fullSnapshotEvery) {
        this(client, clock, fullSnapshotEvery, Optional.empty());
    }

    /**
     * @param parallelRequests runs the requests of one snapshot's write, read or purge at once;
     *     empty to send them one after another
     */
    public MetaStore(
            MetaTableClient client,
            Clock clock,
            int fullSnapshotEvery,
            Optional<Executor> parallelRequests) {
        this(client, clock, fullSnapshotEvery, parallelRequests, DEFAULT_ROWS_PER_READ_SLICE);
    }

    MetaStore(
            MetaTableClient client,
            Clock clock,
            int fullSnapshotEvery,
            Optional<Executor> parallelRequests,
            int rowsPerReadSlice) {
        this.parallelRequests = Objects.requireNonNull(parallelRequests, "parallelRequests");
        if (rowsPerReadSlice < 1) {
            throw new IllegalArgumentException(
                    "rowsPerReadSlice must be >= 1 but was " + rowsPerReadSlice);
        }
        this.rowsPerReadSlice = rowsPerReadSlice;
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (fullSnapshotEvery < 1) {
            throw new IllegalArgumentException(
                    "fullSnapshotEvery must be >= 1 but was " + fullSnapshotEvery);
        }
        this.fullSnapshotEvery = fullSnapshotEvery;
        this.format = new MetaRowFormat(client.tableName());
        this.ownership = new Ownership(client, clock, format);
    }

    /** Creates the meta table unless it exists (and checks its key if it does). */
    public void ensureTable() {
        if (client.createTableIfMissing()) {
            LOG.info("Created meta table {}", client.tableName());
        }
    }

    /**
     * Writes a complete snapshot in full: the first token of a stream, or a snapshot that carries
     * every channel forward. Re-writing the same snapshot is a no-op; a different one fails.
     */
    public void seed(BatchSnapshot snapshot, long batchSequence) {
        write(snapshot, batchSequence, Optional.empty());
    }

    /**
     * Writes a complete snapshot, as a delta over the base of the snapshot {@code after} when that
     * is cheaper (see {@link #carryForward(String, BatchToken, long, Optional, Collection,
     * Collection)}); {@code after} is the snapshot this consumer wrote before, if it knows one.
     */
    public void write(BatchSnapshot snapshot, long batchSequence, Optional<BatchToken> after) {
        carryForward(
                snapshot.tunnelId(),
                snapshot.token(),
                batchSequence,
                after,
                snapshot.channels().keySet(),
                snapshot.channels().values());
    }

    /**
     * As {@link #carryForward(String, BatchToken, long, Optional, Collection, Collection)}, writing
     * the snapshot in full.
     */
    public void carryForward(
            String tunnelId,
            BatchToken token,
            long batchSequence,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        carryForward(tunnelId, token, batchSequence, Optional.empty(), manifestChannels, carried);
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
            String tunnelId,
            BatchToken token,
            long batchSequence,
            Optional<BatchToken> after,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        TreeSet<String> channels = new TreeSet<>(manifestChannels);
        requireCarriedInManifest(token, channels, carried);
        if (batchSequence < 0) {
            throw new IllegalArgumentException(
                    "batchSequence must be >= 0 but was " + batchSequence);
        }
        Layout layout = layout(tunnelId, after, channels, carried);
        MetaRowFormat.Manifest manifest =
                new MetaRowFormat.Manifest(List.copyOf(channels), batchSequence, layout.delta());
        // Log first, so that retention finds every row written after it, even after a crash; the
        // log row names the base, so that retention keeps the base while this snapshot is kept.
        LoggedBatch logged =
                new LoggedBatch(
                        batchSequence,
                        token,
                        clock.millis(),
                        layout.delta().map(MetaRowFormat.Delta::base));
        client.putIfAbsent(MetaRowFormat.batchLogRow(tunnelId, logged));
        writeManifest(tunnelId, token, manifest);
        writeEntries(tunnelId, token, layout.written());
        known.manifest(tunnelId, token, manifest);
        if (manifest.delta().isEmpty() && carried.size() == channels.size()) {
            known.full(tunnelId, token, byChannel(carried));
        }
    }

    /** How a planned snapshot is written: in full or as a delta, and the entries written now. */
    private record Layout(
            Optional<MetaRowFormat.Delta> delta, Collection<ChannelCheckpoint> written) {}

    private Layout layout(
            String tunnelId,
            Optional<BatchToken> after,
            TreeSet<String> channels,
            Collection<ChannelCheckpoint> carried) {
        Layout full = new Layout(Optional.empty(), carried);
        if (fullSnapshotEvery <= 1 || after.isEmpty()) {
            return full;
        }
        Optional<MetaRowFormat.Manifest> start = manifest(tunnelId, after.get());
        if (start.isEmpty()) {
            return full;
        }
        Optional<MetaRowFormat.Delta> startDelta = start.get().delta();
        BatchToken base = startDelta.map(MetaRowFormat.Delta::base).orElse(after.get());
        int depth = startDelta.map(d -> d.depth() + 1).orElse(1);
        if (depth >= fullSnapshotEvery) {
            return full;
        }
        Map<String, ChannelCheckpoint> baseEntries;
        try {
            baseEntries = fullEntries(tunnelId, base);
        } catch (SnapshotNotFoundException | IncompleteSnapshotException e) {
            LOG.debug("Writing snapshot in full: base {} is not readable: {}", base, e.toString());
            return full;
        }
        TreeSet<String> own = new TreeSet<>(channels);
        List<ChannelCheckpoint> written = new ArrayList<>();
        for (ChannelCheckpoint c : carried) {
            ChannelCheckpoint inBase = baseEntries.get(c.channelId());
            if (inBase != null && inBase.carriedForward().equals(c)) {
                own.remove(c.channelId());
            } else {
                written.add(c);
            }
        }
        if (own.size() > channels.size() * MAX_DELTA_SHARE) {
            return full;
        }
        return new Layout(
                Optional.of(new MetaRowFormat.Delta(base, depth, List.copyOf(own))), written);
    }

    /** The manifest of {@code token}, from memory or one read; empty when it has none. */
    private Optional<MetaRowFormat.Manifest> manifest(String tunnelId, BatchToken token) {
        Optional<MetaRowFormat.Manifest> cached = known.manifest(tunnelId, token);
        if (cached.isPresent()) {
            return cached;
        }
        Optional<MetaRowFormat.Manifest> read =
                client.get(MetaRowFormat.manifestKey(tunnelId, token)).map(format::manifest);
        read.ifPresent(m -> known.manifest(tunnelId, token, m));
        return read;
    }

    /** The entries of a full snapshot, from memory or one range read. */
    private Map<String, ChannelCheckpoint> fullEntries(String tunnelId, BatchToken token) {
        Optional<Map<String, ChannelCheckpoint>> cached = known.full(tunnelId, token);
        if (cached.isPresent()) {
            return cached.get();
        }
        Stored stored = readStored(tunnelId, token);
        if (stored.manifest().delta().isPresent()) {
            throw new MetaFormatException(
                    snapshotName(tunnelId, token)
                            + " is named as the base of a delta snapshot but is a delta itself."
                            + " The meta table is corrupt; restore it from a backup, or start from"
                            + " a new checkpoint and choose the start position (see"
                            + " docs/meta-table.md).");
        }
        requireComplete(tunnelId, token, stored.manifest().channels(), stored.entries());
        known.full(tunnelId, token, stored.entries());
        return stored.entries();
    }

    private static Map<String, ChannelCheckpoint> byChannel(Collection<ChannelCheckpoint> entries) {
        Map<String, ChannelCheckpoint> map = new TreeMap<>();
        entries.forEach(c -> map.put(c.channelId(), c));
        return map;
    }

    private static void requireCarriedInManifest(
            BatchToken token, TreeSet<String> channels, Collection<ChannelCheckpoint> carried) {
        Set<String> seen = new HashSet<>();
        for (ChannelCheckpoint c : carried) {
            if (!seen.add(c.channelId())) {
                throw new IllegalArgumentException(
                        "Channel " + c.channelId() + " is carried twice into batch token " + token);
            }
            if (!channels.contains(c.channelId())) {
                throw new IllegalArgumentException(
                        "Carried channel "
                                + c.channelId()
                                + " of batch token "
                                + token
                                + " is not in the snapshot's channel list "
                                + channels);
            }
        }
    }

    private void writeManifest(String tunnelId, BatchToken token, MetaRowFormat.Manifest wanted) {
        MetaRow row = MetaRowFormat.manifestRow(tunnelId, token, wanted, clock.millis());
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return;
        }
        MetaRowFormat.Manifest existing = format.manifest(getExisting(row.key()));
        if (!existing.equals(wanted)) {
            throw new ConflictingSnapshotException(
                    snapshotName(tunnelId, token)
                            + " was already declared as batch "
                            + existing.batchSequence()
                            + " with channels "
                            + existing.channels()
                            + describeDelta(existing)
                            + "; this attempt declares batch "
                            + wanted.batchSequence()
                            + " with channels "
                            + wanted.channels()
                            + describeDelta(wanted)
                            + ". "
                            + SECOND_WRITER_HINT);
        }
    }

    /** "The snapshot of batch token T of tunnel U in meta table M", the head of its errors. */
    private String snapshotName(String tunnelId, BatchToken token) {
        return "The snapshot of batch token "
                + token
                + " of tunnel "
                + tunnelId
                + " in meta table "
                + client.tableName();
    }

    private static String describeDelta(MetaRowFormat.Manifest manifest) {
        return manifest.delta()
                .map(
                        d ->
                                " as a delta over "
                                        + d.base()
                                        + " (depth "
                                        + d.depth()
                                        + ") holding "
                                        + d.channels())
                .orElse(" in full");
    }

    private void writeEntries(
            String tunnelId, BatchToken token, Collection<ChannelCheckpoint> entries) {
        List<MetaRow> rows = new ArrayList<>();
        entries.forEach(c -> rows.add(MetaRowFormat.entryRow(tunnelId, token, c)));
        List<List<MetaRow>> chunks = chunks(rows);
        List<Supplier<List<PutOutcome>>> writes = new ArrayList<>();
        chunks.forEach(chunk -> writes.add(() -> client.putAllIfAbsent(chunk)));
        List<List<PutOutcome>> outcomes = eachAtOnce(writes);
        List<MetaRow> conflicts = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            for (int i = 0; i < chunks.get(c).size(); i++) {
                if (outcomes.get(c).get(i) == PutOutcome.ALREADY_EXISTS) {
                    conflicts.add(chunks.get(c).get(i));
                }
            }
        }
        if (!conflicts.isEmpty()) {
            requireSameEntries(tunnelId, token, conflicts);
        }
    }

    /** {@code items} in runs of at most {@link MetaTableClient#MAX_BATCH_ROWS}. */
    private static <T> List<List<T>> chunks(List<T> items) {
        List<List<T>> chunks = new ArrayList<>();
        for (int from = 0; from < items.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            chunks.add(
                    items.subList(
                            from, Math.min(items.size(), from + MetaTableClient.MAX_BATCH_ROWS)));
        }
        return chunks;
    }

    /**
     * Runs the calls, at once when this store has an executor, and returns their results in order.
     * Waits for every call to end before it throws the first failure (in list order), so that no
     * request is still in flight when the caller goes on (a manifest or log row written after, a
     * retry, a replan).
     */
    private <T> List<T> eachAtOnce(List<Supplier<T>> calls) {
        if (parallelRequests.isEmpty() || calls.size() < 2) {
            List<T> results = new ArrayList<>();
            calls.forEach(c -> results.add(c.get()));
            return results;
        }
        List<CompletableFuture<T>> running = new ArrayList<>();
        RuntimeException failure = null;
        for (Supplier<T> call : calls) {
            try {
                running.add(CompletableFuture.supplyAsync(call, parallelRequests.get()));
            } catch (RuntimeException rejected) {
                failure = rejected; // e.g. the executor was shut down: send no more
                break;
            }
        }
        List<T> results = new ArrayList<>();
        for (CompletableFuture<T> call : running) {
            try {
                results.add(call.join());
            } catch (CompletionException e) {
                failure = failure != null ? failure : unwrapped(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }

    private static RuntimeException unwrapped(CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return e;
    }

    /** Rows that already existed must be identical; one range read checks them all at once. */
    private void requireSameEntries(String tunnelId, BatchToken token, List<MetaRow> wanted) {
        Map<MetaRowKey, MetaRow> existing = new HashMap<>();
        readAll(tunnelId, token.toString()).forEach(r -> existing.put(r.key(), r));
        for (MetaRow row : wanted) {
            ChannelCheckpoint mine = format.entry(row);
            MetaRow found = existing.get(row.key());
            ChannelCheckpoint theirs = format.entry(found == null ? getExisting(row.key()) : found);
            if (!theirs.equals(mine)) {
                throw new ConflictingSnapshotException(
                        "Channel "
                                + mine.channelId()
                                + " of batch token "
                                + token
                                + " of tunnel "
                                + tunnelId
                                + " already has the entry "
                                + ConflictingFillException.describe(theirs)
                                + " in meta table "
                                + client.tableName()
                                + "; this attempt writes "
                                + ConflictingFillException.describe(mine)
                                + ". "
                                + SECOND_WRITER_HINT);
            }
        }
    }

    /**
     * Records the first position at which this consumer adopted each channel, once per channel and
     * independently of any snapshot (invariant 5). An engine restored from an older checkpoint or
     * savepoint finds here where to restart a channel that its snapshot does not know yet, instead
     * of trusting a server checkpoint that may run ahead of what it committed. Later adoptions of a
     * channel already recorded change nothing.
     */
    public void recordAdoptions(String tunnelId, Collection<ChannelCheckpoint> adopted) {
        List<MetaRow> rows = new ArrayList<>();
        adopted.forEach(c -> rows.add(MetaRowFormat.adoptionRow(tunnelId, c)));
        for (int from = 0; from < rows.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            int to = Math.min(rows.size(), from + MetaTableClient.MAX_BATCH_ROWS);
            client.putAllIfAbsent(rows.subList(from, to));
        }
    }

    /**
     * Records the id of the tunnel client the tunnel's owner has just connected. Call it only while
     * holding the owner lease (invariant 8), so that one writer changes this row at a time.
     */
    public void recordTunnelClient(String tunnelId, String clientId) {
        MetaRow row = MetaRowFormat.clientRow(tunnelId, clientId);
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return;
        }
        String previous = format.clientId(getExisting(row.key()));
        if (!previous.equals(clientId)
                && !client.replaceIf(row, MetaRowFormat.COL_CLIENT_ID, MetaValue.text(previous))
                // A retried write whose first attempt landed fails its condition: read which.
                && !format.clientId(getExisting(row.key())).equals(clientId)) {
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

    /**
     * The tunnel client the tunnel's previous owner last connected, if any. A new owner shuts it
     * down before connecting its own, so that the server releases the channels of a crashed
     * predecessor at once instead of after its heartbeat timeout.
     */
    public Optional<String> lastTunnelClient(String tunnelId) {
        return client.get(MetaRowFormat.clientKey(tunnelId)).map(format::clientId);
    }

    /** Where this consumer first adopted each channel of the tunnel, by channel id. */
    public Map<String, ChannelPosition> adoptions(String tunnelId) {
        Map<String, ChannelPosition> adoptions = new HashMap<>();
        for (MetaRow row : readAll(tunnelId, MetaRowFormat.ADOPTIONS)) {
            adoptions.put(row.key().channelId(), format.adoption(row));
        }
        return adoptions;
    }

    /**
     * Records where a reader's part of the batch ended for one channel. The first writer wins: an
     * identical second fill returns normally, a different one throws {@link
     * ConflictingFillException} (the task must then be retried as a replay).
     */
    public void fill(String tunnelId, BatchToken token, ChannelCheckpoint end) {
        MetaRow row = MetaRowFormat.entryRow(tunnelId, token, end);
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return;
        }
        ChannelCheckpoint recorded = format.entry(getExisting(row.key()));
        if (!recorded.equals(end)) {
            throw new ConflictingFillException(tunnelId, token, recorded, end);
        }
    }

    /**
     * {@link #fill} for many channels of one batch in as few requests as possible (put-if-absent
     * batch writes of at most {@link MetaTableClient#MAX_BATCH_ROWS} rows). The first writer wins
     * per row: a row already holding the same entry is fine, a different one throws {@link
     * ConflictingFillException} (the task must then be retried as a replay). Rows written before a
     * conflict stay: each is a correct first write of its own channel.
     */
    public void fillAll(String tunnelId, BatchToken token, List<ChannelCheckpoint> ends) {
        for (int from = 0; from < ends.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            List<ChannelCheckpoint> chunk =
                    ends.subList(
                            from, Math.min(ends.size(), from + MetaTableClient.MAX_BATCH_ROWS));
            List<MetaRow> rows = new ArrayList<>();
            chunk.forEach(end -> rows.add(MetaRowFormat.entryRow(tunnelId, token, end)));
            List<PutOutcome> outcomes = client.putAllIfAbsent(rows);
            for (int i = 0; i < rows.size(); i++) {
                if (outcomes.get(i) != PutOutcome.WRITTEN) {
                    requireSameFill(tunnelId, token, rows.get(i), chunk.get(i));
                }
            }
        }
    }

    private void requireSameFill(
            String tunnelId, BatchToken token, MetaRow row, ChannelCheckpoint end) {
        ChannelCheckpoint recorded = format.entry(getExisting(row.key()));
        if (!recorded.equals(end)) {
            throw new ConflictingFillException(tunnelId, token, recorded, end);
        }
    }

    private MetaRow getExisting(MetaRowKey key) {
        return client.get(key)
                .orElseThrow(
                        () ->
                                new MetaTableException(
                                        "Meta table "
                                                + client.tableName()
                                                + " reported row "
                                                + key
                                                + " as existing but it is gone; is something"
                                                + " deleting meta rows while the consumer runs?"
                                                + " Retry, and stop any other process that"
                                                + " deletes from this table."));
    }

    /**
     * One channel's entry under {@code token}, if a reader already filled it (or it was carried
     * forward). Tells a reader whether its part of a batch was read before: then it must replay to
     * exactly that end instead of reading afresh (invariant 1).
     */
    public Optional<ChannelCheckpoint> entry(String tunnelId, BatchToken token, String channelId) {
        return client.get(MetaRowFormat.entryKey(tunnelId, token, channelId)).map(format::entry);
    }

    /**
     * The entries under {@code token} of those of {@code channelIds} that have one, by channel id:
     * {@link #entry} for many channels with range reads from the smallest id to the largest (one
     * request when the ids are close in key order, as a reader's group of channels is).
     */
    public Map<String, ChannelCheckpoint> entries(
            String tunnelId, BatchToken token, Collection<String> channelIds) {
        Map<String, ChannelCheckpoint> found = new HashMap<>();
        if (channelIds.isEmpty()) {
            return found;
        }
        TreeSet<String> wanted = new TreeSet<>(channelIds);
        Optional<String> from = Optional.of(wanted.first());
        while (from.isPresent() && from.get().compareTo(wanted.last()) <= 0) {
            RangePage page =
                    client.readRange(
                            tunnelId, token.toString(), from, MetaTableClient.MAX_RANGE_ROWS);
            for (MetaRow row : page.rows()) {
                if (wanted.contains(row.key().channelId())) {
                    found.put(row.key().channelId(), format.entry(row));
                }
            }
            if (page.nextChannelId().equals(from)) {
                throw new MetaTableException(
                        "Range read of meta table "
                                + client.tableName()
                                + " did not advance past "
                                + from.get()
                                + "; retry, and report this as a bug if it persists");
            }
            from = page.nextChannelId();
        }
        return found;
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
    public BatchSnapshot read(String tunnelId, BatchToken token) {
        Stored stored = readStored(tunnelId, token);
        MetaRowFormat.Manifest manifest = stored.manifest();
        known.manifest(tunnelId, token, manifest);
        if (manifest.delta().isEmpty()) {
            requireComplete(tunnelId, token, manifest.channels(), stored.entries());
            known.full(tunnelId, token, stored.entries());
            return new BatchSnapshot(tunnelId, token, stored.entries());
        }
        MetaRowFormat.Delta delta = manifest.delta().get();
        requireComplete(tunnelId, token, delta.channels(), stored.entries());
        Map<String, ChannelCheckpoint> base;
        try {
            base = fullEntries(tunnelId, delta.base());
        } catch (SnapshotNotFoundException e) {
            throw baseNotFound(tunnelId, token, delta.base());
        }
        Map<String, ChannelCheckpoint> entries = new TreeMap<>(stored.entries());
        List<String> missing = new ArrayList<>();
        for (String id : manifest.channels()) {
            if (!entries.containsKey(id)) {
                ChannelCheckpoint inBase = base.get(id);
                if (inBase == null) {
                    missing.add(id);
                } else {
                    entries.put(id, inBase.carriedForward());
                }
            }
        }
        if (!missing.isEmpty()) {
            throw incomplete(
                    tunnelId,
                    token,
                    String.format(
                            "is a delta over %s, and %d of its %d channels have an entry in"
                                    + " neither: %s",
                            delta.base(),
                            missing.size(),
                            manifest.channels().size(),
                            abbreviate(missing)));
        }
        return new BatchSnapshot(tunnelId, token, entries);
    }

    /** The rows of one snapshot as stored: its manifest and the entries under its own token. */
    private record Stored(
            MetaRowFormat.Manifest manifest, Map<String, ChannelCheckpoint> entries) {}

    private Stored readStored(String tunnelId, BatchToken token) {
        List<MetaRow> rows = readSnapshotRows(tunnelId, token);
        if (rows.isEmpty()) {
            throw snapshotNotFound(tunnelId, token);
        }
        Optional<MetaRowFormat.Manifest> manifest = Optional.empty();
        Map<String, ChannelCheckpoint> entries = new TreeMap<>();
        for (MetaRow row : rows) {
            if (row.key().channelId().equals(MANIFEST)) {
                manifest = Optional.of(format.manifest(row));
            } else {
                ChannelCheckpoint entry = format.entry(row);
                entries.put(entry.channelId(), entry);
            }
        }
        if (manifest.isEmpty()) {
            throw incomplete(tunnelId, token, "has entries but no manifest row");
        }
        return new Stored(manifest.get(), entries);
    }

    private SnapshotNotFoundException baseNotFound(
            String tunnelId, BatchToken token, BatchToken base) {
        return new SnapshotNotFoundException(
                snapshotName(tunnelId, token)
                        + " is a delta over the full snapshot "
                        + base
                        + ", which is gone. Retention keeps every base a kept snapshot names, so"
                        + " the rows were deleted by something else (a table TTL, or by hand)."
                        + " Restore them from a backup, or start from a new checkpoint location"
                        + " (Spark) or without the savepoint (Flink) and choose the start"
                        + " position.");
    }

    private SnapshotNotFoundException snapshotNotFound(String tunnelId, BatchToken token) {
        return new SnapshotNotFoundException(
                "Meta table "
                        + client.tableName()
                        + " holds no snapshot for batch token "
                        + token
                        + " of tunnel "
                        + tunnelId
                        + ", which the engine's checkpoint says was committed. Likely causes: the"
                        + " meta rows were purged or deleted (retention shorter than the engine's,"
                        + " a table TTL, or deleted by hand), or this query/job is configured with"
                        + " a different meta table or instance than the one that wrote the"
                        + " checkpoint. Fix: point meta.table (and the endpoint/instance) at the"
                        + " table that wrote the checkpoint; if the rows are gone, start from a new"
                        + " checkpoint location (Spark) or without the savepoint (Flink) and choose"
                        + " the start position.");
    }

    /** The entries under {@code token} are exactly the {@code listed} channels. */
    private void requireComplete(
            String tunnelId,
            BatchToken token,
            List<String> listed,
            Map<String, ChannelCheckpoint> entries) {
        List<String> missing = listed.stream().filter(c -> !entries.containsKey(c)).toList();
        if (!missing.isEmpty()) {
            throw incomplete(
                    tunnelId,
                    token,
                    String.format(
                            "is incomplete: %d of %d channels have no entry: %s",
                            missing.size(), listed.size(), abbreviate(missing)));
        }
        Set<String> listedSet = new HashSet<>(listed);
        List<String> extra = entries.keySet().stream().filter(c -> !listedSet.contains(c)).toList();
        if (!extra.isEmpty()) {
            throw incomplete(
                    tunnelId,
                    token,
                    "has entries for channels its manifest does not list: " + abbreviate(extra));
        }
    }

    private IncompleteSnapshotException incomplete(
            String tunnelId, BatchToken token, String problem) {
        return new IncompleteSnapshotException(
                snapshotName(tunnelId, token)
                        + " "
                        + problem
                        + ". The engine committed this batch, so the meta table is corrupt (rows"
                        + " deleted or a fill lost). Restore the rows from a backup, or start from"
                        + " a new checkpoint and choose the start position (see"
                        + " docs/meta-table.md).");
    }

    private static String abbreviate(List<String> channels) {
        return channels.size() <= 10
                ? channels.toString()
                : channels.subList(0, 10) + " and " + (channels.size() - 10) + " more";
    }

    /** The tunnel's batch log, oldest first. */
    public List<LoggedBatch> batchLog(String tunnelId) {
        List<LoggedBatch> log = new ArrayList<>();
        readAll(tunnelId, BATCH_LOG).forEach(row -> log.add(format.loggedBatch(row)));
        return log;
    }

    /**
     * Deletes old snapshots, keeping every snapshot of the newest {@code keepLastBatches} batch
     * sequences and every base a kept snapshot names (invariant 7); deletes at most {@link
     * #DEFAULT_MAX_SNAPSHOTS_PER_PURGE} snapshots. A base is deleted only after every delta over
     * it, so an interrupted purge never leaves a delta without its base.
     */
    public PurgeResult purge(String tunnelId, int keepLastBatches) {
        return purge(tunnelId, keepLastBatches, DEFAULT_MAX_SNAPSHOTS_PER_PURGE);
    }

    /** As {@link #purge(String, int)}, deleting at most {@code maxSnapshots} snapshots. */
    public PurgeResult purge(String tunnelId, int keepLastBatches, int maxSnapshots) {
        if (keepLastBatches < 1 || maxSnapshots < 1) {
            throw new IllegalArgumentException(
                    "purge keeps at least 1 batch and deletes at least 1 snapshot per call, but was"
                            + " asked to keep "
                            + keepLastBatches
                            + " and delete up to "
                            + maxSnapshots);
        }
        List<LoggedBatch> log = batchLog(tunnelId);
        List<LoggedBatch> deletable = deletable(log, expired(log, keepLastBatches));
        Map<BatchToken, Integer> dependents = new HashMap<>();
        log.forEach(b -> b.base().ifPresent(base -> dependents.merge(base, 1, Integer::sum)));
        List<LoggedBatch> now = new ArrayList<>();
        for (LoggedBatch batch : deletable) {
            if (now.size() == maxSnapshots) {
                break;
            }
            if (dependents.getOrDefault(batch.token(), 0) > 0) {
                continue; // a base goes after the deltas over it, even expired ones
            }
            now.add(batch);
            batch.base().ifPresent(base -> dependents.merge(base, -1, Integer::sum));
        }
        long rows = 0;
        for (LoggedBatch batch : now) {
            rows += deleteSnapshot(tunnelId, batch);
            known.forget(tunnelId, batch.token());
        }
        return new PurgeResult(now.size(), rows, deletable.size() - now.size());
    }

    /**
     * The expired batches that may go: not the base of a batch that is kept (a kept delta must stay
     * readable, invariant 7), deltas first so that a base is deleted after the deltas over it.
     */
    private static List<LoggedBatch> deletable(List<LoggedBatch> log, List<LoggedBatch> expired) {
        Set<BatchToken> expiredTokens = new HashSet<>();
        expired.forEach(b -> expiredTokens.add(b.token()));
        Set<BatchToken> keptBases = new HashSet<>();
        log.stream()
                .filter(b -> !expiredTokens.contains(b.token()))
                .forEach(b -> b.base().ifPresent(keptBases::add));
        List<LoggedBatch> deltas = new ArrayList<>();
        List<LoggedBatch> full = new ArrayList<>();
        for (LoggedBatch b : expired) {
            if (!keptBases.contains(b.token())) {
                (b.base().isPresent() ? deltas : full).add(b);
            }
        }
        deltas.addAll(full);
        return deltas;
    }

    /**
     * Batches in neither the newest {@code keep} sequences nor the {@code keep} most recently
     * written ones; orphan tokens share their sequence's slot. Sequence order alone is not enough
     * once another consumer has used the tunnel (a Flink job's checkpoint 9000 after a Spark
     * query's batch 40, or the reverse): the newest batches of the consumer that purges must never
     * rank below a predecessor's larger numbers. Write time alone is not enough either (a clock set
     * back would rank a consumer's newest batches last). A batch must be old by both.
     */
    private static List<LoggedBatch> expired(List<LoggedBatch> log, int keep) {
        Set<Long> kept = new HashSet<>(newestSlots(log, keep, Slot.BY_SEQUENCE));
        kept.addAll(newestSlots(log, keep, Slot.BY_WRITE_TIME));
        List<LoggedBatch> expired = new ArrayList<>();
        log.stream().filter(b -> !kept.contains(b.sequence())).forEach(expired::add);
        return expired;
    }

    /** One batch sequence, with the time its latest token was logged. */
    private record Slot(long sequence, long writtenAtMillis) {
        static final Comparator<Slot> BY_SEQUENCE = Comparator.comparingLong(Slot::sequence);
        static final Comparator<Slot> BY_WRITE_TIME =
                Comparator.comparingLong(Slot::writtenAtMillis).thenComparing(BY_SEQUENCE);
    }

    /** The sequences of the {@code keep} greatest slots by {@code order}. */
    private static List<Long> newestSlots(List<LoggedBatch> log, int keep, Comparator<Slot> order) {
        Map<Long, Long> writtenAt = new HashMap<>();
        log.forEach(b -> writtenAt.merge(b.sequence(), b.createdAtMillis(), Math::max));
        return writtenAt.entrySet().stream()
                .map(e -> new Slot(e.getKey(), e.getValue()))
                .sorted(order.reversed())
                .limit(keep)
                .map(Slot::sequence)
                .toList();
    }

    /**
     * Snapshot rows first, the log row last: an interrupted purge is finished by the next one. The
     * rows are the ones the manifest lists (one row read, not the whole snapshot); without a
     * manifest (a purge interrupted after deleting it, or a plan that died before writing it) they
     * are read.
     */
    private long deleteSnapshot(String tunnelId, LoggedBatch batch) {
        List<MetaRowKey> keys = new ArrayList<>();
        Optional<MetaRowFormat.Manifest> manifest;
        try {
            manifest = manifest(tunnelId, batch.token());
        } catch (MetaFormatException unreadable) {
            manifest = Optional.empty(); // deleted all the same, found by a read
        }
        if (manifest.isPresent()) {
            storedKeys(manifest.get())
                    .forEach(
                            id -> keys.add(new MetaRowKey(tunnelId, batch.token().toString(), id)));
        } else {
            readAll(tunnelId, batch.token().toString()).forEach(r -> keys.add(r.key()));
        }
        List<Supplier<Void>> deletes = new ArrayList<>();
        for (List<MetaRowKey> chunk : chunks(keys)) {
            deletes.add(
                    () -> {
                        client.deleteAll(chunk);
                        return null;
                    });
        }
        eachAtOnce(deletes);
        client.deleteAll(
                List.of(MetaRowFormat.batchLogKey(tunnelId, batch.sequence(), batch.token())));
        LOG.debug(
                "Purged snapshot {} (batch {}) of tunnel {}: {} rows",
                batch.token(),
                batch.sequence(),
                tunnelId,
                keys.size());
        return keys.size() + 1L;
    }

    /**
     * The channel ids of the rows stored under a snapshot's own token, in key order: its manifest
     * and the entries of every channel (a full snapshot) or of the delta's own channels.
     */
    private static TreeSet<String> storedKeys(MetaRowFormat.Manifest manifest) {
        TreeSet<String> ids =
                new TreeSet<>(
                        manifest.delta()
                                .map(MetaRowFormat.Delta::channels)
                                .orElse(manifest.channels()));
        ids.add(MANIFEST);
        return ids;
    }

    /**
     * Every row under the snapshot's token, as {@link #readAll} returns them. When the manifest is
     * known and the snapshot large, it is read in key slices at once, each a range read from its
     * first key up to the next slice's first key; the slices cover every key, so rows the manifest
     * does not list are read as well.
     */
    private List<MetaRow> readSnapshotRows(String tunnelId, BatchToken token) {
        Optional<MetaRowFormat.Manifest> manifest = known.manifest(tunnelId, token);
        if (parallelRequests.isEmpty() || manifest.isEmpty()) {
            return readAll(tunnelId, token.toString());
        }
        List<String> ids = new ArrayList<>(storedKeys(manifest.get()));
        int slices = Math.min(MAX_READ_SLICES, ids.size() / rowsPerReadSlice);
        if (slices < 2) {
            return readAll(tunnelId, token.toString());
        }
        List<Supplier<List<MetaRow>>> reads = new ArrayList<>();
        for (int i = 0; i < slices; i++) {
            int first = ids.size() * i / slices;
            int end = ids.size() * (i + 1) / slices;
            Optional<String> from = i == 0 ? Optional.empty() : Optional.of(ids.get(first));
            Optional<String> until = i == slices - 1 ? Optional.empty() : Optional.of(ids.get(end));
            int limit = Math.min(MetaTableClient.MAX_RANGE_ROWS, end - first);
            reads.add(() -> readSlice(tunnelId, token.toString(), from, until, limit));
        }
        List<MetaRow> rows = new ArrayList<>();
        eachAtOnce(reads).forEach(rows::addAll);
        return rows;
    }

    /** The rows from {@code from} (inclusive) up to {@code until} (exclusive), paging. */
    private List<MetaRow> readSlice(
            String tunnelId,
            String batch,
            Optional<String> from,
            Optional<String> until,
            int limit) {
        List<MetaRow> rows = new ArrayList<>();
        Optional<String> next = from;
        do {
            RangePage page = client.readRange(tunnelId, batch, next, limit);
            if (next.isPresent() && page.rows().isEmpty() && page.nextChannelId().equals(next)) {
                throw new MetaTableException(
                        "Range read of meta table "
                                + client.tableName()
                                + " did not advance past "
                                + next
                                + "; retry, and report this as a bug if it persists");
            }
            for (MetaRow row : page.rows()) {
                if (until.isPresent() && row.key().channelId().compareTo(until.get()) >= 0) {
                    return rows;
                }
                rows.add(row);
            }
            next = page.nextChannelId();
        } while (next.isPresent() && (until.isEmpty() || next.get().compareTo(until.get()) < 0));
        return rows;
    }

    /** Every row under {@code (tunnelId, batch)}, paging through range reads. */
    private List<MetaRow> readAll(String tunnelId, String batch) {
        List<MetaRow> rows = new ArrayList<>();
        Optional<String> from = Optional.empty();
        do {
            RangePage page =
                    client.readRange(tunnelId, batch, from, MetaTableClient.MAX_RANGE_ROWS);
            if (from.isPresent() && page.rows().isEmpty() && page.nextChannelId().equals(from)) {
                throw new MetaTableException(
                        "Range read of meta table "
                                + client.tableName()
                                + " did not advance past "
                                + from
                                + "; retry, and report this as a bug if it persists");
            }
            rows.addAll(page.rows());
            from = page.nextChannelId();
        } while (from.isPresent());
        return rows;
    }

    /**
     * The newest snapshot of the tunnel that reads back complete, by write time then batch
     * sequence; empty when none does. A snapshot planned but not yet filled is skipped, so this is
     * where the consumer's newest finished batch left every channel (the engine may not have
     * committed it yet).
     */
    public Optional<BatchSnapshot> newestSnapshot(String tunnelId) {
        List<LoggedBatch> log = new ArrayList<>(batchLog(tunnelId));
        log.sort(
                Comparator.comparingLong(LoggedBatch::createdAtMillis)
                        .thenComparingLong(LoggedBatch::sequence)
                        .reversed());
        for (LoggedBatch batch : log) {
            try {
                return Optional.of(read(tunnelId, batch.token()));
            } catch (SnapshotNotFoundException | IncompleteSnapshotException e) {
                LOG.debug("Snapshot {} is not complete: {}", batch.token(), e.toString());
            }
        }
        return Optional.empty();
    }

    /** Counts the tunnel's rows in this meta table, as {@link #deleteTunnelRows} would delete. */
    public TunnelRows tunnelRows(String tunnelId) {
        return census(tunnelId).rows();
    }

    /**
     * Deletes every row of the tunnel: its snapshots, batch log, adoptions, owner lease and
     * recorded client. For a consumer that is gone for good (a dropped query or job, a deleted
     * tunnel); a consumer that still runs would find its committed snapshots gone. Snapshot rows go
     * first and the batch log last, so an interrupted call is finished by the next one.
     *
     * @return what was deleted
     */
    public TunnelRows deleteTunnelRows(String tunnelId) {
        Census census = census(tunnelId);
        List<MetaRowKey> keys = census.keys();
        for (int from = 0; from < keys.size(); from += MetaTableClient.MAX_BATCH_ROWS) {
            client.deleteAll(
                    keys.subList(
                            from, Math.min(keys.size(), from + MetaTableClient.MAX_BATCH_ROWS)));
        }
        census.log().forEach(b -> known.forget(tunnelId, b.token()));
        LOG.info("Deleted {} rows of tunnel {}", keys.size(), tunnelId);
        return census.rows();
    }

    /** A tunnel's rows, with their keys in deletion order. */
    private record Census(TunnelRows rows, List<MetaRowKey> keys, List<LoggedBatch> log) {}

    private Census census(String tunnelId) {
        List<LoggedBatch> log = batchLog(tunnelId);
        List<MetaRow> snapshotRows = new ArrayList<>();
        for (LoggedBatch batch : log) {
            snapshotRows.addAll(readAll(tunnelId, batch.token().toString()));
        }
        List<MetaRow> adoptions = readAll(tunnelId, MetaRowFormat.ADOPTIONS);
        List<MetaRow> ownerRows = new ArrayList<>();
        client.get(MetaRowFormat.ownerKey(tunnelId)).ifPresent(ownerRows::add);
        client.get(MetaRowFormat.clientKey(tunnelId)).ifPresent(ownerRows::add);
        client.get(MetaRowFormat.progressKey(tunnelId)).ifPresent(ownerRows::add);
        List<MetaRow> logRows = readAll(tunnelId, BATCH_LOG);
        List<MetaRow> all = new ArrayList<>(snapshotRows);
        all.addAll(adoptions);
        all.addAll(ownerRows);
        all.addAll(logRows); // last: an interrupted delete still finds the snapshots
        long bytes = all.stream().mapToLong(MetaStore::rowBytes).sum();
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

    /**
     * Makes {@code consumerId} the owner of the tunnel (invariant 8). Succeeds when there is no
     * owner, the owner is the same consumer id (a restart of the same query or job), or the owner's
     * lease has expired.
     *
     * @throws OwnershipConflictException when another consumer holds a live lease
     */
    public OwnerLease acquireOwnership(String tunnelId, String consumerId, long leaseMillis) {
        return ownership.acquire(tunnelId, consumerId, leaseMillis);
    }

    /**
     * Extends the lease by {@code leaseMillis} from now.
     *
     * @throws OwnershipLostException when another consumer has taken the tunnel over
     */
    public OwnerLease renewOwnership(OwnerLease lease, long leaseMillis) {
        return ownership.renew(lease, leaseMillis);
    }

    /**
     * Gives the tunnel up so that another consumer may start at once.
     *
     * @return false when the lease had already been taken over (nothing was changed)
     */
    public boolean releaseOwnership(OwnerLease lease) {
        return ownership.release(lease);
    }

    /**
     * Writes the consumer's catch-up report, replacing the one before it. One conditional write
     * while the row holds this holder's report; a report of an earlier run is replaced after
     * reading it.
     *
     * @return false when another writer changed the row meanwhile (the report was not written; the
     *     next one tries again)
     */
    public boolean reportProgress(String tunnelId, ConsumerProgress progress) {
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

    /** The consumer's newest catch-up report, if one was written. */
    public Optional<ConsumerProgress> progress(String tunnelId) {
        return client.get(MetaRowFormat.progressKey(tunnelId)).map(format::progress);
    }

    /** The tunnel's current lease, if any consumer holds one (expired or not). */
    public Optional<OwnerLease> owner(String tunnelId) {
        return ownership.current(tunnelId);
    }

    /**
     * Snapshots this store has lately read or written, so that planning a delta does not read its
     * start and base again: their manifests, and the entries of full ones. Committed snapshots
     * never change, and a purged one is forgotten.
     */
    private static final class KnownSnapshots {
        private static final int KEPT = 4;

        private final Map<MetaRowKey, MetaRowFormat.Manifest> manifests = lru();
        private final Map<MetaRowKey, Map<String, ChannelCheckpoint>> fulls = lru();

        private static <V> Map<MetaRowKey, V> lru() {
            return new LinkedHashMap<>(8, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<MetaRowKey, V> eldest) {
                    return size() > KEPT;
                }
            };
        }

        private static MetaRowKey key(String tunnelId, BatchToken token) {
            return MetaRowFormat.manifestKey(tunnelId, token);
        }

        synchronized void manifest(
                String tunnelId, BatchToken token, MetaRowFormat.Manifest manifest) {
            manifests.put(key(tunnelId, token), manifest);
        }

        synchronized Optional<MetaRowFormat.Manifest> manifest(String tunnelId, BatchToken token) {
            return Optional.ofNullable(manifests.get(key(tunnelId, token)));
        }

        synchronized void full(
                String tunnelId, BatchToken token, Map<String, ChannelCheckpoint> entries) {
            fulls.put(key(tunnelId, token), Collections.unmodifiableMap(new TreeMap<>(entries)));
        }

        synchronized Optional<Map<String, ChannelCheckpoint>> full(
                String tunnelId, BatchToken token) {
            return Optional.ofNullable(fulls.get(key(tunnelId, token)));
        }

        synchronized void forget(String tunnelId, BatchToken token) {
            manifests.remove(key(tunnelId, token));
            fulls.remove(key(tunnelId, token));
        }
    }
}
