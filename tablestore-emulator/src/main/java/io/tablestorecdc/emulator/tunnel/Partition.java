package io.tablestorecdc.emulator.tunnel;

import io.tablestorecdc.emulator.table.RowChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A key range of one table with its stream change log. A partition is active until a split or merge
 * ends it; its log then stops growing and every later write goes to its children. Guarded by the
 * owning {@link TunnelService}'s lock.
 */
final class Partition {

    private final String id;
    private final KeyRange range;
    private final List<String> parentIds;
    private final int epoch;
    private final List<LogEntry> log = new ArrayList<>();
    private Optional<Long> endedAtNanos = Optional.empty();

    Partition(String id, KeyRange range, List<String> parentIds, int epoch) {
        this.id = id;
        this.range = range;
        this.parentIds = List.copyOf(parentIds);
        this.epoch = epoch;
    }

    String id() {
        return id;
    }

    KeyRange range() {
        return range;
    }

    List<String> parentIds() {
        return parentIds;
    }

    int epoch() {
        return epoch;
    }

    boolean isActive() {
        return endedAtNanos.isEmpty();
    }

    Optional<Long> endedAtNanos() {
        return endedAtNanos;
    }

    void end(long nowNanos) {
        if (isActive()) {
            endedAtNanos = Optional.of(nowNanos);
        }
    }

    void append(RowChange change) {
        if (!isActive()) {
            throw new IllegalStateException("Partition " + id + " has ended; route to a child");
        }
        // Log times never go backwards, so a start offset maps to one log position.
        long time = change.commitTimeMicros() * 1000L;
        if (!log.isEmpty()) {
            time = Math.max(time, log.get(log.size() - 1).timeNanos());
        }
        log.add(new LogEntry(change, time, epoch, log.size()));
    }

    int logSize() {
        return log.size();
    }

    LogEntry entry(int index) {
        return log.get(index);
    }

    List<LogEntry> entries(int from, int to) {
        return List.copyOf(log.subList(from, to));
    }

    /** The index of the first entry committed at or after the given time, else the log size. */
    int firstIndexAtOrAfter(long timeNanos) {
        int lo = 0;
        int hi = log.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (log.get(mid).timeNanos() < timeNanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
