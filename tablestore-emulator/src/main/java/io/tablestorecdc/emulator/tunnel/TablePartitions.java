package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.emulator.table.RowChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The partitions of one table, past and present. The active ones tile the whole key space; split
 * and merge end partitions and start children. Guarded by the owning {@link TunnelService}'s lock.
 */
final class TablePartitions {

    private final String table;
    private final Map<String, Partition> all = new LinkedHashMap<>();
    private int nextId;
    private long lastCommitMicros;

    TablePartitions(String table) {
        this.table = table;
        add(KeyRange.all(), List.of(), 0);
    }

    String table() {
        return table;
    }

    /** Every partition the table ever had, oldest first. */
    Collection<Partition> all() {
        return all.values();
    }

    Optional<Partition> byId(String id) {
        return Optional.ofNullable(all.get(id));
    }

    /** The active partitions in key order. */
    List<Partition> active() {
        List<Partition> active = new ArrayList<>();
        for (Partition p : all.values()) {
            if (p.isActive()) {
                active.add(p);
            }
        }
        active.sort(Comparator.comparing(Partition::range, TablePartitions::byStart));
        return active;
    }

    /** Appends a change to the log of the active partition that holds its key. */
    void append(RowChange change) {
        route(change.primaryKey()).append(change);
        lastCommitMicros = change.commitTimeMicros();
    }

    /** The commit time of the last change appended, 0 before the first. */
    long lastCommitMicros() {
        return lastCommitMicros;
    }

    /** The active partition that holds the key. */
    Partition route(PrimaryKey key) {
        for (Partition p : all.values()) {
            if (p.isActive() && p.range().contains(key)) {
                return p;
            }
        }
        throw new IllegalStateException("No active partition of " + table + " holds " + key);
    }

    /**
     * Ends the partition that holds {@code at} and starts {@code [lo, at)} and {@code [at, hi)}.
     *
     * @return the two children
     */
    List<Partition> split(PrimaryKey at, long nowNanos) {
        Partition parent = route(at);
        KeyRange range = parent.range();
        if (range.start().isPresent() && KeyRange.compareKeys(range.start().get(), at) == 0) {
            throw new IllegalArgumentException(
                    "Cannot split partition "
                            + parent.id()
                            + " of "
                            + table
                            + " at its own start "
                            + at
                            + "; choose a key strictly inside "
                            + range);
        }
        parent.end(nowNanos);
        int epoch = parent.epoch() + 1;
        Partition left =
                add(new KeyRange(range.start(), Optional.of(at)), List.of(parent.id()), epoch);
        Partition right =
                add(new KeyRange(Optional.of(at), range.end()), List.of(parent.id()), epoch);
        return List.of(left, right);
    }

    /**
     * Ends the active partition that starts at {@code at} and its left neighbour and starts one
     * child covering both.
     */
    Partition merge(PrimaryKey at, long nowNanos) {
        List<Partition> active = active();
        for (int i = 1; i < active.size(); i++) {
            Partition right = active.get(i);
            Optional<PrimaryKey> start = right.range().start();
            if (start.isPresent() && KeyRange.compareKeys(start.get(), at) == 0) {
                return mergePair(active.get(i - 1), right, nowNanos);
            }
        }
        throw new IllegalArgumentException(
                "No active partition of "
                        + table
                        + " starts at "
                        + at
                        + "; merge needs the start key of a partition that has a left neighbour"
                        + " (see the partitions list)");
    }

    private Partition mergePair(Partition left, Partition right, long nowNanos) {
        left.end(nowNanos);
        right.end(nowNanos);
        int epoch = Math.max(left.epoch(), right.epoch()) + 1;
        KeyRange range = new KeyRange(left.range().start(), right.range().end());
        return add(range, List.of(left.id(), right.id()), epoch);
    }

    private Partition add(KeyRange range, List<String> parents, int epoch) {
        Partition p = new Partition("p-" + nextId++, range, parents, epoch);
        all.put(p.id(), p);
        return p;
    }

    private static int byStart(KeyRange a, KeyRange b) {
        if (a.start().isEmpty() || b.start().isEmpty()) {
            return Boolean.compare(a.start().isPresent(), b.start().isPresent());
        }
        return KeyRange.compareKeys(a.start().get(), b.start().get());
    }
}
