package io.tablestorecdc.spark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients shared by the tasks of one JVM: one per key, lent out to any number of tasks at once, and
 * closed once no task has borrowed it for {@code idleTimeout} (or when the JVM stops).
 *
 * <p>A task {@link #borrow borrows} a client and {@link Lease#close() returns} it; it never closes
 * the client itself. Only an optimisation: a JVM without a cached client opens one, so nothing
 * depends on which JVM a task runs in. Thread-safe; a client is opened under the lock, so
 * concurrent first borrows of one key open it once.
 *
 * @param <K> what tells clients apart (never a secret in its {@code toString})
 * @param <C> the client
 */
final class SharedClients<K, C extends AutoCloseable> {

    private static final Logger LOG = LoggerFactory.getLogger(SharedClients.class);

    private final String what;
    private final long idleTimeoutNanos;
    private final LongSupplier nanoClock;
    private final Map<K, Entry<C>> entries = new HashMap<>();

    SharedClients(String what, Duration idleTimeout, LongSupplier nanoClock) {
        this.what = Objects.requireNonNull(what, "what");
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** The client for {@code key}, opened with {@code open} if none is cached. */
    synchronized Lease borrow(K key, Supplier<? extends C> open) {
        Entry<C> entry = entries.get(key);
        if (entry == null) {
            entry = new Entry<>(Objects.requireNonNull(open.get(), "opened client"));
            entries.put(key, entry);
            LOG.debug("Opened a shared {} for {}", what, key);
        }
        entry.borrowers++;
        return new Lease(key, entry);
    }

    private synchronized void giveBack(Entry<C> entry) {
        entry.borrowers--;
        entry.idleSinceNanos = nanoClock.getAsLong();
    }

    /** Closes the clients no task has borrowed for the idle timeout; how many it closed. */
    int closeIdle() {
        List<Map.Entry<K, Entry<C>>> idle = new ArrayList<>();
        synchronized (this) {
            long now = nanoClock.getAsLong();
            for (Iterator<Map.Entry<K, Entry<C>>> it = entries.entrySet().iterator();
                    it.hasNext(); ) {
                Map.Entry<K, Entry<C>> e = it.next();
                if (e.getValue().borrowers == 0
                        && now - e.getValue().idleSinceNanos >= idleTimeoutNanos) {
                    idle.add(e);
                    it.remove();
                }
            }
        }
        idle.forEach(e -> close(e.getKey(), e.getValue().client));
        return idle.size();
    }

    /** Closes every client, borrowed or not: the JVM is stopping. */
    void closeAll() {
        Map<K, Entry<C>> all;
        synchronized (this) {
            all = new HashMap<>(entries);
            entries.clear();
        }
        all.forEach((key, entry) -> close(key, entry.client));
    }

    /** Clients cached now. */
    synchronized int size() {
        return entries.size();
    }

    // Outside the lock: an SDK client's shutdown waits for its I/O threads.
    private void close(K key, C client) {
        try {
            client.close();
            LOG.debug("Closed the shared {} for {}", what, key);
        } catch (Exception e) {
            LOG.warn("Could not close the shared {} for {}: {}", what, key, e.getMessage());
        }
    }

    /** One task's use of a shared client; closing it returns the client, once. */
    final class Lease implements AutoCloseable {
        private final K key;
        private final Entry<C> entry;
        private boolean returned;

        private Lease(K key, Entry<C> entry) {
            this.key = key;
            this.entry = entry;
        }

        C client() {
            return entry.client;
        }

        @Override
        public void close() {
            if (!returned) {
                returned = true;
                giveBack(entry);
            }
        }

        @Override
        public String toString() {
            return "Lease{" + what + " for " + key + "}";
        }
    }

    private static final class Entry<C> {
        private final C client;
        private int borrowers;
        private long idleSinceNanos;

        private Entry(C client) {
            this.client = client;
        }
    }
}
