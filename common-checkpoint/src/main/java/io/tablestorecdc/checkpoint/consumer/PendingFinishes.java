package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Collection;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finishes a consumer knows before the commit that records them becomes durable (invariant 3).
 *
 * <p>In Flink a reader reports a channel finished after emitting its last record and before the
 * barrier of the next checkpoint reaches it; the enumerator's snapshot of checkpoint N records the
 * finishes known by then, and they are durable only once N completes. A finish recorded in an
 * aborted checkpoint becomes durable with the next completed one, which records it again. Not
 * thread-safe: one owner thread.
 */
@Internal
public final class PendingFinishes {

    private final SortedMap<Long, Set<String>> bySnapshot = new TreeMap<>();

    /** The snapshot {@code snapshotId} records {@code finishes} (those not known durable yet). */
    public void recordedIn(long snapshotId, Collection<String> finishes) {
        if (!finishes.isEmpty()) {
            bySnapshot.put(snapshotId, new TreeSet<>(finishes));
        }
    }

    /**
     * These finishes were undone before they became durable (in Flink, the reader that reported
     * them restarted from an earlier checkpoint and reports them again): no snapshot recorded so
     * far makes them durable.
     */
    public void forget(Collection<String> finishes) {
        bySnapshot.values().forEach(ids -> ids.removeAll(finishes));
        bySnapshot.values().removeIf(Set::isEmpty);
    }

    /** Snapshot {@code snapshotId} completed: returns the finishes now durable. */
    public Set<String> durableThrough(long snapshotId) {
        SortedMap<Long, Set<String>> durable = bySnapshot.headMap(snapshotId + 1);
        Set<String> out = new TreeSet<>();
        durable.values().forEach(out::addAll);
        durable.clear();
        return out;
    }
}
