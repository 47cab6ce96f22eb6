package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.flink.annotation.Internal;

/**
 * Every channel the enumerator knows, by state: unassigned (waiting for a reader), assigned (with
 * its owner subtask; stopped when it reached the end position of a bounded source) or finished (a
 * tombstone, never read again: invariant 6). Snapshot and restore of {@link EnumeratorState}.
 *
 * <p>Owned by the coordinator thread; the only state other threads read is {@link #knownIds()}, an
 * immutable copy published on every change (the discovery callable uses it).
 */
@Internal
final class SplitTracker {

    private final SortedMap<String, ChannelSplit> unassigned = new TreeMap<>();
    private final SortedMap<String, ChannelSplit> assigned = new TreeMap<>();
    private final SortedMap<String, ChannelSplit> finished = new TreeMap<>();
    private final Map<String, Integer> owners = new HashMap<>();
    private final Set<String> stopped = new TreeSet<>();

    /**
     * Finishes a reader reported that are not durable yet, by channel: the reader and the split as
     * it was assigned. A reader restarted from an earlier checkpoint reads such a channel again.
     */
    private final Map<String, Reported> reported = new HashMap<>();

    private record Reported(int subtask, ChannelSplit split) {}

    private volatile Set<String> knownIds = Set.of();

    /** The tracker of a restored state; restored assignments live in the readers' state. */
    static SplitTracker restore(EnumeratorState state) {
        SplitTracker tracker = new SplitTracker();
        for (EnumeratorState.Entry entry : state.splits().values()) {
            ChannelSplit split = entry.split();
            switch (entry.status()) {
                case FINISHED -> tracker.finished.put(split.splitId(), finishedSplit(split));
                case ASSIGNED -> tracker.assigned.put(split.splitId(), split);
                default -> tracker.unassigned.put(split.splitId(), split);
            }
        }
        tracker.publish();
        return tracker;
    }

    /** The state to checkpoint. */
    Map<String, EnumeratorState.Entry> snapshot() {
        Map<String, EnumeratorState.Entry> splits = new TreeMap<>();
        unassigned.values().forEach(s -> put(splits, s, SplitStatus.UNASSIGNED));
        assigned.values().forEach(s -> put(splits, s, SplitStatus.ASSIGNED));
        finished.values().forEach(s -> put(splits, s, SplitStatus.FINISHED));
        return splits;
    }

    private static void put(
            Map<String, EnumeratorState.Entry> splits, ChannelSplit split, SplitStatus status) {
        splits.put(split.splitId(), new EnumeratorState.Entry(split, status));
    }

    /**
     * Every known channel as an entry of the core's model: tombstones finished, the others at the
     * position they were handed out at (the gate needs only their type and whether they finished).
     */
    Map<String, ChannelCheckpoint> entries() {
        Map<String, ChannelCheckpoint> out = new TreeMap<>();
        for (ChannelSplit split : all()) {
            out.put(
                    split.splitId(),
                    ChannelCheckpoint.adopted(split.splitId(), split.type(), split.position()));
        }
        return out;
    }

    private List<ChannelSplit> all() {
        List<ChannelSplit> out = new ArrayList<>(unassigned.values());
        out.addAll(assigned.values());
        out.addAll(finished.values());
        return out;
    }

    boolean isKnown(String id) {
        return unassigned.containsKey(id) || assigned.containsKey(id) || finished.containsKey(id);
    }

    /** An immutable copy of the known ids, safe to read from any thread. */
    Set<String> knownIds() {
        return knownIds;
    }

    void addUnassigned(ChannelSplit split) {
        unassigned.put(split.splitId(), split);
        publish();
    }

    /** A channel that finished before this job saw it. */
    void addFinished(ChannelSplit split) {
        finished.put(split.splitId(), finishedSplit(split));
        publish();
    }

    void markAssigned(ChannelSplit split, int subtask) {
        unassigned.remove(split.splitId());
        assigned.put(split.splitId(), split);
        owners.put(split.splitId(), subtask);
        publish();
    }

    /**
     * Splits a failed reader gave back: unassigned again at the position they carry (a stopped one
     * is read again from there and stops there again); finished ones stay tombstones.
     */
    void giveBack(Collection<ChannelSplit> splits) {
        for (ChannelSplit split : splits) {
            String id = split.splitId();
            owners.remove(id);
            assigned.remove(id);
            stopped.remove(id);
            if (!finished.containsKey(id)) {
                unassigned.put(id, split);
            }
        }
        publish();
    }

    /**
     * Records that a reader emitted the channel's last record. Returns false for a repeat (a
     * re-report after a restore). An unknown channel becomes a tombstone too.
     */
    boolean finish(String id) {
        return finish(id, Optional.empty());
    }

    /**
     * {@link #finish(String)}, reported by reader {@code subtask}: until {@link #durable} says the
     * finish is committed, {@link #revertFinishes} can give the channel back to that reader.
     */
    boolean finish(String id, int subtask) {
        return finish(id, Optional.of(subtask));
    }

    private boolean finish(String id, Optional<Integer> reporter) {
        if (finished.containsKey(id)) {
            return false;
        }
        ChannelSplit split = assigned.remove(id);
        if (split == null) {
            split = unassigned.remove(id);
        }
        if (split == null) {
            split = new ChannelSplit(id, ChannelType.STREAM, ChannelPosition.finished());
        }
        ChannelSplit before = split;
        reporter.ifPresent(subtask -> reported.put(id, new Reported(subtask, before)));
        owners.remove(id);
        stopped.remove(id);
        finished.put(id, finishedSplit(split));
        publish();
        return true;
    }

    /** These finishes are committed: a restarted reader does not read their channels again. */
    void durable(Collection<String> ids) {
        ids.forEach(reported::remove);
    }

    /**
     * Reader {@code subtask} restarted from the last completed checkpoint: the finishes it reported
     * that are not committed yet are undone, the channels assigned to it again, as its restored
     * state holds them (unfinished, to be read again, or finished, to be reported again at its
     * start: a reader keeps a finished channel in its state until a checkpoint that holds the
     * finish completed). A finish {@code committed} meanwhile (by a checkpoint of the enumerator's
     * or by the reader's committed positions) stays. Returns the channels given back to the reader.
     */
    List<String> revertFinishes(int subtask, Predicate<String> committed) {
        List<String> reverted = new ArrayList<>();
        for (Map.Entry<String, Reported> e : new TreeMap<>(reported).entrySet()) {
            String id = e.getKey();
            if (committed.test(id)) {
                reported.remove(id); // committed through the reader's positions
                continue;
            }
            if (e.getValue().subtask() != subtask) {
                continue;
            }
            reported.remove(id);
            finished.remove(id);
            assigned.put(id, e.getValue().split());
            owners.put(id, subtask);
            reverted.add(id);
        }
        if (!reverted.isEmpty()) {
            publish();
        }
        return reverted;
    }

    /** Records that an assigned channel reached the end position; false if not new. */
    boolean stop(String id) {
        return assigned.containsKey(id) && stopped.add(id);
    }

    boolean isFinished(String id) {
        return finished.containsKey(id);
    }

    SortedMap<String, ChannelSplit> unassigned() {
        return unassigned;
    }

    Set<String> assignedIds() {
        return assigned.keySet();
    }

    Set<String> finishedIds() {
        return finished.keySet();
    }

    /** Subtask to number of channels it reads, for the readers given (each at least 0). */
    Map<Integer, Integer> load(Set<Integer> readers) {
        Map<Integer, Integer> load = new TreeMap<>();
        readers.forEach(r -> load.put(r, 0));
        owners.values().forEach(r -> load.computeIfPresent(r, (k, n) -> n + 1));
        return load;
    }

    /** Whether every assigned channel has stopped at the end position. */
    boolean allAssignedStopped() {
        return stopped.containsAll(assigned.keySet());
    }

    int unassignedCount() {
        return unassigned.size();
    }

    int assignedCount() {
        return assigned.size();
    }

    /** Finishes readers reported that no completed checkpoint has committed yet. */
    int uncommittedFinishes() {
        return reported.size();
    }

    int finishedCount() {
        return finished.size();
    }

    private static ChannelSplit finishedSplit(ChannelSplit split) {
        return split.isFinished() ? split : split.at(ChannelPosition.finished());
    }

    private void publish() {
        Set<String> ids = new TreeSet<>(unassigned.keySet());
        ids.addAll(assigned.keySet());
        ids.addAll(finished.keySet());
        knownIds = Set.copyOf(ids);
    }
}
