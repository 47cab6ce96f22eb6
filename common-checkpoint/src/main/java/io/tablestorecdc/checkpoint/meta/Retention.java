package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes one tunnel's old snapshots (invariant 7): which batches have expired, in which order they
 * may go so that no kept delta loses its base, and the rows of each, in bounded purges.
 */
final class Retention {

    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);

    private final String tunnelId;
    private final MetaRequests requests;
    private final SnapshotReader reader;
    private final KnownSnapshots known;
    private final AtomicLong logged;
    private final Object lock = new Object();

    // What the last purge left: batch sequences in the log, and how many batches had been logged
    // through this handle before it read the log; -1 before the first read.
    private int slotsLeft = -1;
    private long loggedBeforeRead;

    /**
     * @param logged how many batches the tunnel's writer has logged through this handle so far
     */
    Retention(
            String tunnelId,
            MetaRequests requests,
            SnapshotReader reader,
            KnownSnapshots known,
            AtomicLong logged) {
        this.tunnelId = tunnelId;
        this.requests = requests;
        this.reader = reader;
        this.known = known;
        this.logged = logged;
    }

    PurgeResult purge(int keepLastBatches, int maxSnapshots) {
        if (keepLastBatches < 1 || maxSnapshots < 1) {
            throw new IllegalArgumentException(
                    "purge keeps at least 1 batch and deletes at least 1 snapshot per call, but was"
                            + " asked to keep "
                            + keepLastBatches
                            + " and delete up to "
                            + maxSnapshots);
        }
        synchronized (lock) {
            // Nothing can have expired while the log holds at most keepLastBatches sequences:
            // those the last purge left, plus one for each batch logged since (a re-planned batch
            // counts again, which only purges sooner). The log is then not read at all. Only the
            // tunnel's owner logs batches, so none come from elsewhere while this consumer writes.
            if (slotsLeft >= 0
                    && slotsLeft + (logged.get() - loggedBeforeRead) <= keepLastBatches) {
                return new PurgeResult(0, 0, 0);
            }
        }
        long loggedNow = logged.get();
        List<LoggedBatch> log = reader.batchLog();
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
            rows += deleteSnapshot(batch);
            known.forget(tunnelId, batch.token());
        }
        int remaining = deletable.size() - now.size();
        synchronized (lock) {
            if (remaining > 0) {
                slotsLeft = -1; // read again next time, to go on deleting
            } else {
                Set<BatchToken> gone = new HashSet<>();
                now.forEach(b -> gone.add(b.token()));
                Set<Long> left = new HashSet<>();
                log.stream()
                        .filter(b -> !gone.contains(b.token()))
                        .forEach(b -> left.add(b.sequence()));
                slotsLeft = left.size();
                loggedBeforeRead = loggedNow;
            }
        }
        return new PurgeResult(now.size(), rows, remaining);
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
    private long deleteSnapshot(LoggedBatch batch) {
        List<MetaRowKey> keys = new ArrayList<>();
        Optional<MetaRowFormat.Manifest> manifest;
        try {
            manifest = reader.manifest(batch.token());
        } catch (MetaFormatException unreadable) {
            manifest = Optional.empty(); // deleted all the same, found by a read
        }
        if (manifest.isPresent()) {
            SnapshotReader.storedKeys(manifest.get())
                    .forEach(
                            id -> keys.add(new MetaRowKey(tunnelId, batch.token().toString(), id)));
        } else {
            requests.readAll(tunnelId, batch.token().toString()).forEach(r -> keys.add(r.key()));
        }
        MetaTableClient client = requests.client();
        List<Supplier<Void>> deletes = new ArrayList<>();
        for (List<MetaRowKey> chunk : MetaRequests.chunks(keys)) {
            deletes.add(
                    () -> {
                        client.deleteAll(chunk);
                        return null;
                    });
        }
        requests.eachAtOnce(deletes);
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
}
