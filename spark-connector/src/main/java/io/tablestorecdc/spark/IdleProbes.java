package io.tablestorecdc.spark;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Spaces out the probes of channels that had nothing to read.
 *
 * <p>Spark asks for the next offset every few milliseconds while a stream is idle, and each ask
 * probes the readable channels with a {@code readRecords}. A channel whose probe came back empty is
 * probed again only after a wait that doubles from {@link #FIRST_WAIT} up to {@link #MAX_WAIT} (as
 * the SDK's own worker backs off on idle stream channels), so an idle stream costs a few requests
 * per channel per second instead of hundreds. New data on an idle channel is noticed within {@link
 * #MAX_WAIT}. Thread-safe: probes of several channels run at once.
 */
final class IdleProbes {

    static final Duration FIRST_WAIT = Duration.ofMillis(50);
    static final Duration MAX_WAIT = Duration.ofSeconds(1);

    private final LongSupplier nanoClock;
    private final Map<String, Backoff> idle = new HashMap<>();

    IdleProbes(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Whether the channel should be probed now. */
    synchronized boolean due(String channelId) {
        Backoff backoff = idle.get(channelId);
        return backoff == null || nanoClock.getAsLong() - backoff.notBeforeNanos >= 0;
    }

    /** Records a probe's outcome: an empty one backs the channel off, data resets it. */
    synchronized void record(String channelId, boolean empty) {
        if (!empty) {
            idle.remove(channelId);
            return;
        }
        Backoff previous = idle.get(channelId);
        int emptyProbes = previous == null ? 1 : previous.emptyProbes + 1;
        long wait =
                Math.min(MAX_WAIT.toNanos(), FIRST_WAIT.toNanos() << Math.min(emptyProbes - 1, 20));
        idle.put(channelId, new Backoff(nanoClock.getAsLong() + wait, emptyProbes));
    }

    private record Backoff(long notBeforeNanos, int emptyProbes) {}
}
