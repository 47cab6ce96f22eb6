package io.tablestorecdc.spark;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadAllAvailable;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.ReadMinRows;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a batch back while fewer than {@code min.rows.per.trigger} records are known to wait, for
 * at most {@code max.trigger.delay} after the previous batch: Spark's {@link ReadMinRows}, with the
 * semantics of the Kafka source's {@code minOffsetsPerTrigger} / {@code maxTriggerDelay}.
 *
 * <p>As there, the delay's clock starts at the first planning (whose data, if any, is read at once)
 * and restarts at every batch, and at every planning that finds nothing to read once the delay has
 * passed; a batch runs when the known records reach the minimum or the delay has passed. Unlike a
 * Kafka offset, a channel's backlog is known only as the lower bound its planning probe shows (a
 * channel read without a probe counts as large), so a held batch is checked again after a wait that
 * doubles from {@link IdleProbes#FIRST_WAIT} to {@link IdleProbes#MAX_WAIT}, not at every poll of
 * Spark's: holding costs about the requests of an idle stream. Two kinds of news never wait,
 * because waiting would hide data rather than gather it: a channel whose end is in view (its
 * children become readable only after it is read to the end) and a channel adopted from the server.
 *
 * <p>The decision is taken only when Spark asks for a new end offset; a planned batch is durable
 * and a replay reads what it planned, so holding has no effect on what a batch contains.
 * Single-threaded: Spark plans from its stream execution thread.
 */
final class MinRowsAdmission {

    private static final Logger LOG = LoggerFactory.getLogger(MinRowsAdmission.class);

    private final LongSupplier nanoClock;
    private final String tunnelName;
    private boolean started;
    private long clockStartNanos;
    private int heldChecks;
    private long recheckNotBeforeNanos;
    private long heldSinceNanos;
    private long lastHeldNanos;

    MinRowsAdmission(LongSupplier nanoClock, String tunnelName) {
        this.nanoClock = nanoClock;
        this.tunnelName = tunnelName;
    }

    /**
     * The minimum a batch waits for: none under Trigger.AvailableNow, whose last batch may be small
     * (holding it would end the run with records it should have read).
     */
    static Optional<ReadMinRows> minimum(ReadLimit limit, boolean availableNow) {
        return availableNow ? Optional.empty() : minRows(limit);
    }

    /** The minimum of {@code limit}, unless it also allows everything (which wins, as in Kafka). */
    static Optional<ReadMinRows> minRows(ReadLimit limit) {
        return part(limit, ReadMinRows.class);
    }

    /** The maximum of {@code limit}, unless it also allows everything. */
    static Optional<ReadMaxRows> maxRows(ReadLimit limit) {
        return part(limit, ReadMaxRows.class);
    }

    /** {@code limit} itself or its part of type {@code kind}; none when a part allows all. */
    private static <T extends ReadLimit> Optional<T> part(ReadLimit limit, Class<T> kind) {
        if (kind.isInstance(limit)) {
            return Optional.of(kind.cast(limit));
        }
        if (!(limit instanceof CompositeReadLimit composite)) {
            return Optional.empty();
        }
        List<ReadLimit> parts = Arrays.asList(composite.getReadLimits());
        if (parts.stream().anyMatch(ReadAllAvailable.class::isInstance)) {
            return Optional.empty();
        }
        return parts.stream().filter(kind::isInstance).map(kind::cast).findFirst();
    }

    /** Whether a held batch is due to be checked again (always, while none is held). */
    boolean checkDue() {
        return heldChecks == 0 || nanoClock.getAsLong() - recheckNotBeforeNanos >= 0;
    }

    /** A planning found nothing to read: the delay's clock restarts once the delay has passed. */
    void nothingToRead(ReadMinRows limit) {
        long now = nanoClock.getAsLong();
        if (!started || delayPassed(limit, now)) {
            startClock(now);
        }
        heldChecks = 0;
    }

    /**
     * Whether the batch waits.
     *
     * @param knownRows the records known to wait (a lower bound; saturated at Long.MAX_VALUE)
     * @param cannotWait a channel end in view or an adopted channel: the batch runs now
     */
    boolean holds(ReadMinRows limit, long knownRows, boolean cannotWait) {
        long now = nanoClock.getAsLong();
        if (!started || cannotWait || knownRows >= limit.minRows() || delayPassed(limit, now)) {
            lastHeldNanos = heldChecks == 0 ? 0 : now - heldSinceNanos;
            heldChecks = 0;
            startClock(now);
            return false;
        }
        if (heldChecks == 0) {
            heldSinceNanos = now;
            LOG.info(
                    "Holding the next batch of tunnel {}: {} records known to wait, fewer than"
                            + " min.rows.per.trigger = {}; it runs when enough arrive, at the"
                            + " latest {} ms (max.trigger.delay) after the previous batch",
                    tunnelName,
                    knownRows,
                    limit.minRows(),
                    limit.maxTriggerDelayMs());
        }
        heldChecks++;
        long wait =
                Math.min(
                        IdleProbes.MAX_WAIT.toNanos(),
                        IdleProbes.FIRST_WAIT.toNanos() << Math.min(heldChecks - 1, 20));
        recheckNotBeforeNanos = now + wait;
        return true;
    }

    /** How long the last batch planned had been held back before it ran (zero: not held). */
    Duration lastBatchHeld() {
        return Duration.ofNanos(lastHeldNanos);
    }

    private boolean delayPassed(ReadMinRows limit, long now) {
        return (now - clockStartNanos) / 1_000_000 >= limit.maxTriggerDelayMs();
    }

    private void startClock(long now) {
        started = true;
        clockStartNanos = now;
    }
}
