package io.tablestorecdc.e2e.handover;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/** Every change one engine run handed to its sink, in arrival order. Thread-safe. */
public final class DeliveryLog {

    private final String engine;
    private final List<SeenChange> seen = new ArrayList<>();

    public DeliveryLog(String engine) {
        this.engine = engine;
    }

    public String engine() {
        return engine;
    }

    public synchronized void addAll(Collection<SeenChange> changes) {
        seen.addAll(changes);
    }

    public synchronized void add(SeenChange change) {
        seen.add(change);
    }

    public synchronized List<SeenChange> all() {
        return List.copyOf(seen);
    }

    public synchronized int size() {
        return seen.size();
    }

    public synchronized boolean anyMatch(Predicate<SeenChange> test) {
        return seen.stream().anyMatch(test);
    }

    /** The distinct changes delivered. */
    public Set<SeenChange.Key> keys() {
        Set<SeenChange.Key> keys = new TreeSet<>();
        all().forEach(c -> keys.add(c.key()));
        return keys;
    }

    /** Changes delivered more than once in this run. */
    public List<SeenChange.Key> repeated() {
        Set<SeenChange.Key> once = new TreeSet<>();
        List<SeenChange.Key> again = new ArrayList<>();
        for (SeenChange change : all()) {
            if (!once.add(change.key())) {
                again.add(change.key());
            }
        }
        return again;
    }

    /** Per channel, its changes in the order they arrived (the order they were read). */
    public Map<String, List<SeenChange>> byChannel() {
        Map<String, List<SeenChange>> out = new LinkedHashMap<>();
        all().forEach(c -> out.computeIfAbsent(c.channel(), k -> new ArrayList<>()).add(c));
        return out;
    }

    /** The changes of {@code table} alone, as a log of their own. */
    public DeliveryLog ofTable(String table) {
        DeliveryLog log = new DeliveryLog(engine + " (" + table + ")");
        log.addAll(all().stream().filter(c -> c.table.equals(table)).toList());
        return log;
    }

    /** The highest unit (batch id, checkpoint) any change arrived in. */
    public OptionalLong lastUnit() {
        return all().stream().mapToLong(c -> c.unit).max();
    }

    @Override
    public String toString() {
        return engine + ": " + size() + " changes";
    }
}
