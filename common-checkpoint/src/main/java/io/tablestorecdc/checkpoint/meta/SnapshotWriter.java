package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one tunnel's snapshots: the batch log row, the manifest and the carried entries of a
 * planned batch (in full or as a delta over a base), and the readers' fills. Every row is
 * put-if-absent, so a re-planned batch or a repeated fill is a no-op and a different one fails.
 */
final class SnapshotWriter {

    /**
     * A delta holding entries for more than this share of a snapshot's channels is written in full
     * instead: it would cost nearly as many rows, and restarting the deltas from it keeps the next
     * ones small.
     */
    static final double MAX_DELTA_SHARE = 0.5;

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotWriter.class);

    private static final String SECOND_WRITER_HINT =
            "A batch must be planned the same way every time. This usually means a second consumer"
                    + " writes under the same tunnel in this meta table: stop it, or give each"
                    + " query/job its own tunnel.";

    private final String tunnelId;
    private final MetaRequests requests;
    private final MetaTableClient client;
    private final MetaRowFormat format;
    private final SnapshotReader reader;
    private final KnownSnapshots known;
    private final Clock clock;
    private final int fullSnapshotEvery;
    private final AtomicLong logged;

    SnapshotWriter(
            String tunnelId,
            MetaRequests requests,
            SnapshotReader reader,
            KnownSnapshots known,
            Clock clock,
            int fullSnapshotEvery,
            AtomicLong logged) {
        this.tunnelId = tunnelId;
        this.requests = requests;
        this.client = requests.client();
        this.format = requests.format();
        this.reader = reader;
        this.known = known;
        this.clock = clock;
        this.fullSnapshotEvery = fullSnapshotEvery;
        this.logged = logged;
    }

    void write(BatchSnapshot snapshot, long batchSequence, Optional<BatchToken> after) {
        carryForward(
                snapshot.token(),
                batchSequence,
                after,
                snapshot.channels().keySet(),
                snapshot.channels().values());
    }

    void carryForward(
            BatchToken token,
            long batchSequence,
            Optional<BatchToken> after,
            Collection<String> manifestChannels,
            Collection<ChannelCheckpoint> carried) {
        PreparedSnapshot prepared = prepare(token, batchSequence, after, manifestChannels, carried);
        // Log first, so that retention finds every row written after it, even after a crash; the
        // log row names the base, so that retention keeps the base while this snapshot is kept.
        client.putIfAbsent(prepared.logRow());
        if (client.putIfAbsent(prepared.manifestRow()) != PutOutcome.WRITTEN) {
            requireSameManifest(prepared);
        }
        writeEntries(token, prepared.entryRows());
        written(prepared);
    }

    /**
     * The rows of the snapshot {@link #carryForward} would write, chosen the same way (in full or
     * as a delta), without writing them: for {@link TunnelMeta#writeAll}, which writes the
     * snapshots of many tunnels in shared requests. Reads the rows the choice depends on.
     */
    PreparedSnapshot prepare(
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
        Layout layout = layout(after, channels, carried);
        MetaRowFormat.Manifest manifest =
                new MetaRowFormat.Manifest(List.copyOf(channels), batchSequence, layout.delta());
        long now = clock.millis();
        LoggedBatch logged =
                new LoggedBatch(
                        batchSequence, token, now, layout.delta().map(MetaRowFormat.Delta::base));
        List<MetaRow> entries = new ArrayList<>();
        layout.written().forEach(c -> entries.add(MetaRowFormat.entryRow(tunnelId, token, c)));
        Map<String, ChannelCheckpoint> full =
                manifest.delta().isEmpty() && carried.size() == channels.size()
                        ? byChannel(carried)
                        : null;
        return new PreparedSnapshot(
                this,
                token,
                MetaRowFormat.batchLogRow(tunnelId, logged),
                manifest,
                MetaRowFormat.manifestRow(tunnelId, token, manifest, now),
                List.copyOf(entries),
                full,
                List.of());
    }

    /** Remembers a snapshot whose rows are all written, so that the next batch reads none. */
    void written(PreparedSnapshot prepared) {
        logged.incrementAndGet();
        known.manifest(tunnelId, prepared.token(), prepared.manifest());
        if (prepared.fullEntries() != null) {
            known.full(tunnelId, prepared.token(), prepared.fullEntries());
        }
    }

    void fill(BatchToken token, ChannelCheckpoint end) {
        MetaRow row = MetaRowFormat.entryRow(tunnelId, token, end);
        if (client.putIfAbsent(row) == PutOutcome.WRITTEN) {
            return;
        }
        ChannelCheckpoint recorded = format.entry(requests.getExisting(row.key()));
        if (!recorded.equals(end)) {
            throw new ConflictingFillException(tunnelId, token, recorded, end);
        }
    }

    void fillAll(BatchToken token, List<ChannelCheckpoint> ends) {
        List<BatchFills.End> all = new ArrayList<>(ends.size());
        ends.forEach(end -> all.add(new BatchFills.End(tunnelId, token, end)));
        new BatchFills(requests).fillAll(all);
    }

    /** How a planned snapshot is written: in full or as a delta, and the entries written now. */
    private record Layout(
            Optional<MetaRowFormat.Delta> delta, Collection<ChannelCheckpoint> written) {}

    private Layout layout(
            Optional<BatchToken> after,
            TreeSet<String> channels,
            Collection<ChannelCheckpoint> carried) {
        Layout full = new Layout(Optional.empty(), carried);
        if (fullSnapshotEvery <= 1 || after.isEmpty()) {
            return full;
        }
        Optional<MetaRowFormat.Manifest> start = reader.manifest(after.get());
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
            baseEntries = reader.fullEntries(base);
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

    /** The manifest row already written must declare the same snapshot as {@code prepared}. */
    void requireSameManifest(PreparedSnapshot prepared) {
        MetaRowFormat.Manifest wanted = prepared.manifest();
        MetaRowFormat.Manifest existing =
                format.manifest(requests.getExisting(prepared.manifestRow().key()));
        if (!existing.equals(wanted)) {
            throw new ConflictingSnapshotException(
                    reader.snapshotName(prepared.token())
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

    private void writeEntries(BatchToken token, List<MetaRow> rows) {
        List<List<MetaRow>> chunks = MetaRequests.chunks(rows);
        List<Supplier<List<PutOutcome>>> writes = new ArrayList<>();
        chunks.forEach(chunk -> writes.add(() -> client.putAllIfAbsent(chunk)));
        List<List<PutOutcome>> outcomes = requests.eachAtOnce(writes);
        List<MetaRow> conflicts = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            for (int i = 0; i < chunks.get(c).size(); i++) {
                if (outcomes.get(c).get(i) == PutOutcome.ALREADY_EXISTS) {
                    conflicts.add(chunks.get(c).get(i));
                }
            }
        }
        if (!conflicts.isEmpty()) {
            requireSameEntries(token, conflicts);
        }
    }

    /** Rows that already existed must be identical; one range read checks them all at once. */
    void requireSameEntries(BatchToken token, List<MetaRow> wanted) {
        Map<MetaRowKey, MetaRow> existing = new HashMap<>();
        requests.readAll(tunnelId, token.toString()).forEach(r -> existing.put(r.key(), r));
        for (MetaRow row : wanted) {
            ChannelCheckpoint mine = format.entry(row);
            MetaRow found = existing.get(row.key());
            ChannelCheckpoint theirs =
                    format.entry(found == null ? requests.getExisting(row.key()) : found);
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
}
