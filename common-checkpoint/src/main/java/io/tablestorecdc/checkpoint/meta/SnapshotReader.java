package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.MetaRowFormat.MANIFEST;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one tunnel's snapshots: single entries for readers that replay, whole snapshots for
 * restarts and planning (a delta resolved against its base), the batch log. Keeps the snapshots
 * lately read or written in {@link KnownSnapshots}, which the tunnel's writer shares.
 */
final class SnapshotReader {

    /** Most key slices one snapshot read is split into. */
    static final int MAX_READ_SLICES = 4;

    /** Fewest rows a read slice covers: smaller snapshots are read in one go. */
    static final int DEFAULT_ROWS_PER_READ_SLICE = 256;

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReader.class);

    private final String tunnelId;
    private final MetaRequests requests;
    private final MetaTableClient client;
    private final MetaRowFormat format;
    private final KnownSnapshots known;
    private final int rowsPerReadSlice;

    SnapshotReader(
            String tunnelId, MetaRequests requests, KnownSnapshots known, int rowsPerReadSlice) {
        this.tunnelId = tunnelId;
        this.requests = requests;
        this.client = requests.client();
        this.format = requests.format();
        this.known = known;
        this.rowsPerReadSlice = rowsPerReadSlice;
    }

    Optional<ChannelCheckpoint> entry(BatchToken token, String channelId) {
        return client.get(MetaRowFormat.entryKey(tunnelId, token, channelId)).map(format::entry);
    }

    Map<String, ChannelCheckpoint> entries(BatchToken token, Collection<String> channelIds) {
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

    BatchSnapshot read(BatchToken token) {
        Stored stored = readStored(token);
        return assemble(token, stored.manifest(), stored.entries());
    }

    /**
     * The keys of the entries stored under {@code token}, when its manifest is in memory (a
     * snapshot this handle wrote or read): what {@link #assemble} needs besides the manifest.
     */
    Optional<List<MetaRowKey>> knownEntryKeys(BatchToken token) {
        return known.manifest(tunnelId, token)
                .map(
                        manifest -> {
                            List<MetaRowKey> keys = new ArrayList<>();
                            for (String id : storedKeys(manifest)) {
                                if (!id.equals(MANIFEST)) {
                                    keys.add(MetaRowFormat.entryKey(tunnelId, token, id));
                                }
                            }
                            return keys;
                        });
    }

    /** The complete snapshot of {@code token} from its known manifest and the given entry rows. */
    BatchSnapshot assembleKnown(BatchToken token, List<MetaRow> entryRows) {
        MetaRowFormat.Manifest manifest =
                known.manifest(tunnelId, token)
                        .orElseThrow(() -> new IllegalStateException("manifest not in memory"));
        Map<String, ChannelCheckpoint> entries = new TreeMap<>();
        for (MetaRow row : entryRows) {
            ChannelCheckpoint entry = format.entry(row);
            entries.put(entry.channelId(), entry);
        }
        return assemble(token, manifest, entries);
    }

    private BatchSnapshot assemble(
            BatchToken token,
            MetaRowFormat.Manifest manifest,
            Map<String, ChannelCheckpoint> stored) {
        known.manifest(tunnelId, token, manifest);
        if (manifest.delta().isEmpty()) {
            requireComplete(token, manifest.channels(), stored);
            known.full(tunnelId, token, stored);
            return new BatchSnapshot(tunnelId, token, stored);
        }
        MetaRowFormat.Delta delta = manifest.delta().get();
        requireComplete(token, delta.channels(), stored);
        Map<String, ChannelCheckpoint> base;
        try {
            base = fullEntries(delta.base());
        } catch (SnapshotNotFoundException e) {
            throw baseNotFound(token, delta.base());
        }
        Map<String, ChannelCheckpoint> entries = new TreeMap<>(stored);
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

    Optional<BatchSnapshot> newestSnapshot() {
        List<LoggedBatch> log = new ArrayList<>(batchLog());
        log.sort(
                Comparator.comparingLong(LoggedBatch::createdAtMillis)
                        .thenComparingLong(LoggedBatch::sequence)
                        .reversed());
        for (LoggedBatch batch : log) {
            try {
                return Optional.of(read(batch.token()));
            } catch (SnapshotNotFoundException | IncompleteSnapshotException e) {
                LOG.debug("Snapshot {} is not complete: {}", batch.token(), e.toString());
            }
        }
        return Optional.empty();
    }

    List<LoggedBatch> batchLog() {
        return requests.batchLog(tunnelId);
    }

    /** The manifest of {@code token}, from memory or one read; empty when it has none. */
    Optional<MetaRowFormat.Manifest> manifest(BatchToken token) {
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
    Map<String, ChannelCheckpoint> fullEntries(BatchToken token) {
        Optional<Map<String, ChannelCheckpoint>> cached = known.full(tunnelId, token);
        if (cached.isPresent()) {
            return cached.get();
        }
        Stored stored = readStored(token);
        if (stored.manifest().delta().isPresent()) {
            throw new MetaFormatException(
                    snapshotName(token)
                            + " is named as the base of a delta snapshot but is a delta itself."
                            + " The meta table is corrupt; restore it from a backup, or start from"
                            + " a new checkpoint and choose the start position (see"
                            + " docs/meta-table.md).");
        }
        requireComplete(token, stored.manifest().channels(), stored.entries());
        known.full(tunnelId, token, stored.entries());
        return stored.entries();
    }

    /**
     * The channel ids of the rows stored under a snapshot's own token, in key order: its manifest
     * and the entries of every channel (a full snapshot) or of the delta's own channels.
     */
    static TreeSet<String> storedKeys(MetaRowFormat.Manifest manifest) {
        TreeSet<String> ids =
                new TreeSet<>(
                        manifest.delta()
                                .map(MetaRowFormat.Delta::channels)
                                .orElse(manifest.channels()));
        ids.add(MANIFEST);
        return ids;
    }

    /** "The snapshot of batch token T of tunnel U in meta table M", the head of its errors. */
    String snapshotName(BatchToken token) {
        return "The snapshot of batch token "
                + token
                + " of tunnel "
                + tunnelId
                + " in meta table "
                + client.tableName();
    }

    /** The rows of one snapshot as stored: its manifest and the entries under its own token. */
    private record Stored(
            MetaRowFormat.Manifest manifest, Map<String, ChannelCheckpoint> entries) {}

    private Stored readStored(BatchToken token) {
        List<MetaRow> rows = readSnapshotRows(token);
        if (rows.isEmpty()) {
            throw snapshotNotFound(token);
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
            throw incomplete(token, "has entries but no manifest row");
        }
        return new Stored(manifest.get(), entries);
    }

    /**
     * Every row under the snapshot's token, as {@link MetaRequests#readAll} returns them. When the
     * manifest is known and the snapshot large, it is read in key slices at once, each a range read
     * from its first key up to the next slice's first key; the slices cover every key, so rows the
     * manifest does not list are read as well.
     */
    private List<MetaRow> readSnapshotRows(BatchToken token) {
        Optional<MetaRowFormat.Manifest> manifest = known.manifest(tunnelId, token);
        if (!requests.parallel() || manifest.isEmpty()) {
            return requests.readAll(tunnelId, token.toString());
        }
        List<String> ids = new ArrayList<>(storedKeys(manifest.get()));
        int slices = Math.min(MAX_READ_SLICES, ids.size() / rowsPerReadSlice);
        if (slices < 2) {
            return requests.readAll(tunnelId, token.toString());
        }
        List<Supplier<List<MetaRow>>> reads = new ArrayList<>();
        for (int i = 0; i < slices; i++) {
            int first = ids.size() * i / slices;
            int end = ids.size() * (i + 1) / slices;
            Optional<String> from = i == 0 ? Optional.empty() : Optional.of(ids.get(first));
            Optional<String> until = i == slices - 1 ? Optional.empty() : Optional.of(ids.get(end));
            int limit = Math.min(MetaTableClient.MAX_RANGE_ROWS, end - first);
            reads.add(() -> requests.readSlice(tunnelId, token.toString(), from, until, limit));
        }
        List<MetaRow> rows = new ArrayList<>();
        requests.eachAtOnce(reads).forEach(rows::addAll);
        return rows;
    }

    private SnapshotNotFoundException baseNotFound(BatchToken token, BatchToken base) {
        return new SnapshotNotFoundException(
                snapshotName(token)
                        + " is a delta over the full snapshot "
                        + base
                        + ", which is gone. Retention keeps every base a kept snapshot names, so"
                        + " the rows were deleted by something else (a table TTL, or by hand)."
                        + " Restore them from a backup, or start from a new checkpoint location"
                        + " (Spark) or without the savepoint (Flink) and choose the start"
                        + " position.");
    }

    private SnapshotNotFoundException snapshotNotFound(BatchToken token) {
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
            BatchToken token, List<String> listed, Map<String, ChannelCheckpoint> entries) {
        List<String> missing = listed.stream().filter(c -> !entries.containsKey(c)).toList();
        if (!missing.isEmpty()) {
            throw incomplete(
                    token,
                    String.format(
                            "is incomplete: %d of %d channels have no entry: %s",
                            missing.size(), listed.size(), abbreviate(missing)));
        }
        Set<String> listedSet = new HashSet<>(listed);
        List<String> extra = entries.keySet().stream().filter(c -> !listedSet.contains(c)).toList();
        if (!extra.isEmpty()) {
            throw incomplete(
                    token,
                    "has entries for channels its manifest does not list: " + abbreviate(extra));
        }
    }

    private IncompleteSnapshotException incomplete(BatchToken token, String problem) {
        return new IncompleteSnapshotException(
                snapshotName(token)
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
}
