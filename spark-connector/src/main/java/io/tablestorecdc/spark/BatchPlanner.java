package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.meta.PreparedSnapshot;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.ReadMinRows;

/**
 * Plans batches on the driver: which channels the next batch reads, with which record caps, and the
 * carried-forward part of its end snapshot.
 *
 * <p>The plan is made once, when Spark asks for the next offset, and is then durable twice: the
 * carried entries in the meta table, the read set in the offset Spark logs. A batch re-run after a
 * restart therefore reads the same channels from the same start (invariant 1). A channel is read
 * only once it is in the committed start snapshot; a channel adopted in a merge is carried into the
 * end snapshot first and read from the next batch on.
 */
final class BatchPlanner {

    private static final int SNAPSHOTS_CACHED = 4;

    private final SourceConnection connection;
    private final TablestoreSourceOptions options;
    private final IdleProbes idleProbes = new IdleProbes(System::nanoTime);
    private final MinRowsAdmission admission;
    private ChannelStatus status = ChannelStatus.NONE;
    private final Map<BatchToken, BatchSnapshot> snapshots =
            new LinkedHashMap<>(8, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<BatchToken, BatchSnapshot> e) {
                    return size() > SNAPSHOTS_CACHED;
                }
            };

    BatchPlanner(SourceConnection connection, TablestoreSourceOptions options) {
        this.connection = connection;
        this.options = options;
        this.admission = new MinRowsAdmission(System::nanoTime, options.tunnelName());
    }

    /** Seeds the first snapshot of a query from the server's checkpoints. */
    TablestoreOffset seed() {
        MergeResult merge = connection.merge(Optional.empty());
        BatchToken token = BatchToken.random();
        connection.meta().seed(merge.snapshotFor(token), 0L);
        return TablestoreOffset.initial(token);
    }

    /** The complete snapshot of a committed token (cached: committed snapshots never change). */
    synchronized BatchSnapshot snapshot(BatchToken token) {
        BatchSnapshot cached = snapshots.get(token);
        if (cached == null) {
            cached = connection.meta().read(token);
            snapshots.put(token, cached);
        }
        return cached;
    }

    /** Whether the snapshot of {@code token} is in memory ({@link #snapshot} reads nothing). */
    synchronized boolean knows(BatchToken token) {
        return snapshots.containsKey(token);
    }

    /** Keeps the committed snapshot of {@code token}, read with other tables' snapshots. */
    synchronized void remember(BatchToken token, BatchSnapshot snapshot) {
        snapshots.put(token, snapshot);
    }

    /**
     * The end offset of the next batch after {@code start}, or {@code start} itself when there is
     * nothing to read and no channel to adopt (no empty batches: invariant 7), or when {@code
     * min.rows.per.trigger} holds the batch back ({@link MinRowsAdmission}; never under
     * Trigger.AvailableNow, whose last batch may be small).
     */
    TablestoreOffset next(TablestoreOffset start, ReadLimit limit, OptionalLong cutoffMicros) {
        return candidate(start, limit, cutoffMicros)
                .map(c -> plan(c, caps(c.toRead(), limit)))
                .orElse(start);
    }

    /**
     * What the next batch after {@code start} would read, before its record caps: empty when there
     * is nothing to read and no channel to adopt, or when {@code min.rows.per.trigger} holds it
     * back. A source of several tables caps the candidates of all its tables together.
     */
    Optional<Candidate> candidate(
            TablestoreOffset start, ReadLimit limit, OptionalLong cutoffMicros) {
        Optional<ReadMinRows> min = MinRowsAdmission.minimum(limit, cutoffMicros.isPresent());
        if (min.isPresent() && !admission.checkDue()) {
            return Optional.empty();
        }
        BatchSnapshot committed = snapshot(start.token());
        MergeResult merge = connection.merge(Optional.of(committed));
        List<ChannelBacklog> toRead = readableWithData(start, committed, merge, cutoffMicros);
        status = ChannelStatus.of(merge, toRead.stream().map(ChannelBacklog::entry).toList());
        if (toRead.isEmpty() && merge.adopted().isEmpty()) {
            min.ifPresent(admission::nothingToRead);
            return Optional.empty();
        }
        if (min.isPresent()
                && admission.holds(
                        min.get(),
                        knownRecords(toRead),
                        !merge.adopted().isEmpty()
                                || toRead.stream().anyMatch(ChannelBacklog::reachesEnd))) {
            return Optional.empty();
        }
        return Optional.of(new Candidate(start, merge, toRead));
    }

    /**
     * A batch to plan: its start, the merge of its start snapshot with the listing, and the
     * channels with data to read.
     */
    record Candidate(TablestoreOffset start, MergeResult merge, List<ChannelBacklog> toRead) {}

    /**
     * Plans {@code candidate} with {@code caps} (channel id to record cap, for exactly the channels
     * it reads): a new token, the channels not read carried forward in the meta table.
     */
    TablestoreOffset plan(Candidate candidate, SortedMap<String, Long> caps) {
        TablestoreOffset end = endOf(candidate, caps);
        MergeResult merge = candidate.merge();
        connection
                .meta()
                .carryForward(
                        end.token(),
                        end.batch(),
                        Optional.of(candidate.start().token()),
                        merge.entries().keySet(),
                        carried(merge, end));
        return end;
    }

    /**
     * As {@link #plan}, with the snapshot's rows prepared and not written: a source of many tables
     * writes every table's snapshot of the batch together ({@link TunnelConsumer#writeAll}).
     */
    Prepared prepare(Candidate candidate, SortedMap<String, Long> caps) {
        TablestoreOffset end = endOf(candidate, caps);
        MergeResult merge = candidate.merge();
        PreparedSnapshot snapshot =
                connection
                        .meta()
                        .prepare(
                                end.token(),
                                end.batch(),
                                Optional.of(candidate.start().token()),
                                merge.entries().keySet(),
                                carried(merge, end));
        return new Prepared(end, snapshot);
    }

    /** A planned batch's end offset, and the snapshot to write before the batch may run. */
    record Prepared(TablestoreOffset end, PreparedSnapshot snapshot) {}

    private static TablestoreOffset endOf(Candidate candidate, SortedMap<String, Long> caps) {
        return new TablestoreOffset(BatchToken.random(), candidate.start().batch() + 1, caps);
    }

    /** The entries of the channels the batch ending at {@code end} does not read. */
    private static List<ChannelCheckpoint> carried(MergeResult merge, TablestoreOffset end) {
        List<ChannelCheckpoint> carried = new ArrayList<>();
        merge.entries().values().stream()
                .filter(e -> !end.read().containsKey(e.channelId()))
                .forEach(carried::add);
        return carried;
    }

    /** The records known to wait in {@code channels}, saturated at {@link ChannelBacklog#LARGE}. */
    private static long knownRecords(List<ChannelBacklog> channels) {
        long known = 0;
        for (ChannelBacklog c : channels) {
            known =
                    c.records() >= ChannelBacklog.LARGE - known
                            ? ChannelBacklog.LARGE
                            : known + c.records();
        }
        return known;
    }

    /**
     * How long {@code min.rows.per.trigger} has held the next batch (read under the stream's lock).
     */
    MinRowsAdmission admission() {
        return admission;
    }

    private List<ChannelBacklog> readableWithData(
            TablestoreOffset start,
            BatchSnapshot committed,
            MergeResult merge,
            OptionalLong cutoffMicros) {
        Set<String> open = connection.session().openChannelIds();
        List<CompletableFuture<ChannelBacklog>> pending = new ArrayList<>();
        for (String id : merge.readable()) {
            Optional<ChannelCheckpoint> entry = committed.channel(id);
            if (entry.isPresent() && open.contains(id) && !pastCutoff(entry.get(), cutoffMicros)) {
                pending.add(backlog(start, entry.get()));
            }
        }
        List<ChannelBacklog> out = new ArrayList<>();
        for (CompletableFuture<ChannelBacklog> backlog : pending) {
            ChannelBacklog known = TunnelConsumer.joined(backlog);
            if (known.records() > 0) {
                out.add(known);
            }
        }
        return out;
    }

    /**
     * Trigger.AvailableNow reads what was committed before it started: a channel whose last read
     * record was committed at or after the cutoff is done for this run.
     */
    private static boolean pastCutoff(ChannelCheckpoint entry, OptionalLong cutoffMicros) {
        return cutoffMicros.isPresent()
                && entry.lastSequence().timestampMicros() >= cutoffMicros.getAsLong();
    }

    /** What the last planning saw, for the query progress. */
    synchronized ChannelStatus status() {
        return status;
    }

    /**
     * A lower bound of what reading the channel now would deliver (0: nothing, not even its end),
     * probing the channel only when {@link ProbeDecision} asks for it. A channel read without a
     * probe has an unknown, possibly large backlog. Probes run in parallel on the connection's
     * request threads.
     */
    private CompletableFuture<ChannelBacklog> backlog(
            TablestoreOffset start, ChannelCheckpoint entry) {
        return switch (ProbeDecision.of(start, entry, idleProbes)) {
            case READ -> {
                connection.catchUp().behind(entry.channelId());
                yield CompletableFuture.completedFuture(
                        new ChannelBacklog(entry, ChannelBacklog.LARGE));
            }
            case WAIT -> CompletableFuture.completedFuture(new ChannelBacklog(entry, 0));
            case PROBE -> CompletableFuture.supplyAsync(() -> probe(entry), connection.requests());
        };
    }

    private ChannelBacklog probe(ChannelCheckpoint entry) {
        ChannelPosition position = entry.position();
        ReadResult probe =
                connection
                        .proxy()
                        .readRecords(connection.clientId(), entry.channelId(), position.token());
        ChannelBacklog backlog = ChannelBacklog.probed(entry, probe, position.skip());
        idleProbes.record(entry.channelId(), backlog.records() == 0);
        if (backlog.records() == 0) {
            connection.catchUp().caughtUp(entry.channelId(), position);
        } else {
            connection.catchUp().behind(entry.channelId());
        }
        return backlog;
    }

    /** Per-channel caps for the channels with data to read. */
    SortedMap<String, Long> caps(List<ChannelBacklog> channels, ReadLimit limit) {
        return caps(channels, limit, options.maxRowsPerChannel());
    }

    /**
     * {@code max.rows.per.trigger} split in proportion to each channel's backlog (so a nearly idle
     * channel does not take an even share it cannot use), at least 1 record each, and at most
     * {@code max.rows.per.channel} each.
     */
    static SortedMap<String, Long> caps(
            List<ChannelBacklog> channels, ReadLimit limit, long perChannel) {
        List<Long> inOrder = capsInOrder(channels, limit, perChannel);
        SortedMap<String, Long> caps = new TreeMap<>();
        for (int i = 0; i < channels.size(); i++) {
            caps.put(channels.get(i).entry().channelId(), inOrder.get(i));
        }
        return caps;
    }

    /**
     * {@link #caps} of {@code channels} (of one table or of several, whose channel ids may repeat)
     * in their order.
     */
    static List<Long> capsInOrder(List<ChannelBacklog> channels, ReadLimit limit, long perChannel) {
        Optional<ReadMaxRows> max = MinRowsAdmission.maxRows(limit);
        List<Long> caps = new ArrayList<>(channels.size());
        if (max.isEmpty()) {
            channels.forEach(c -> caps.add(perChannel));
            return caps;
        }
        long total = max.get().maxRows();
        long weights = 0;
        for (ChannelBacklog c : channels) {
            weights += Math.min(c.records(), total);
        }
        long given = 0;
        for (ChannelBacklog c : channels) {
            long weight = Math.min(c.records(), total);
            long share = (long) ((double) total * weight / Math.max(1L, weights));
            caps.add(Math.max(1L, share));
            given += Math.max(1L, share);
        }
        for (int i = 0; i < channels.size(); i++) {
            ChannelBacklog c = channels.get(i);
            if (given < total && caps.get(i) < Math.min(c.records(), total)) {
                caps.set(i, caps.get(i) + 1);
                given++;
            }
        }
        caps.replaceAll(cap -> Math.min(cap, perChannel));
        return caps;
    }
}
