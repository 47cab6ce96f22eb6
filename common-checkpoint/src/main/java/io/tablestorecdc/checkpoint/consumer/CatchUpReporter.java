package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the consumer's catch-up report ({@link ConsumerProgress}) in the meta table, for both
 * engines: the engine tells it which channels a read found drained, and at which position, and
 * which it found behind; {@link #flushIfDue()}, called often from one of the engine's periodic
 * threads, writes the report when it changed (at most once per {@link #MIN_INTERVAL}) and rewrites
 * it every {@link #REFRESH_EVERY} while it lists a channel, so that a reader of the report can tell
 * a live one from one a dead consumer left behind. A failed write is logged and retried at the next
 * flush: the report is for operators and never holds up reading. Thread-safe.
 *
 * <p>Spark's driver reports what its planning probes find; Flink's enumerator what its readers
 * report with each completed checkpoint: a channel whose checkpointed position is the one at which
 * the reader found it drained.
 */
@Internal
public final class CatchUpReporter {

    /** Least time between two writes of a changed report. */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    /** A report listing channels is rewritten at least this often. */
    public static final Duration REFRESH_EVERY = OwnerLeaseKeeper.RENEW_EVERY;

    /**
     * How recent a report must be to speak for a live consumer: two refreshes (one late write is
     * allowed for, as for lease renewals).
     */
    public static final Duration FRESHNESS = REFRESH_EVERY.multipliedBy(2);

    private static final Logger LOG = LoggerFactory.getLogger(CatchUpReporter.class);

    private final TunnelMeta meta;
    private final String tunnelId;
    private final String holder;
    private final LongSupplier clockMillis;
    private final LongSupplier nanoClock;
    private final Map<String, ChannelPosition> caughtUp = new HashMap<>();
    private boolean changed;
    private boolean everWritten;
    private boolean withOthers;
    private long lastWriteNanos;
    private int writeAttempts;

    CatchUpReporter(
            TunnelMeta meta, String holder, LongSupplier clockMillis, LongSupplier nanoClock) {
        this.meta = meta;
        this.tunnelId = meta.tunnelId();
        this.holder = holder;
        this.clockMillis = clockMillis;
        this.nanoClock = nanoClock;
    }

    /** A reporter for the consumer holding {@code owner}, writing through the lease's meta rows. */
    public static CatchUpReporter of(OwnerLeaseKeeper owner) {
        return new CatchUpReporter(
                owner.meta(), owner.holder(), System::currentTimeMillis, System::nanoTime);
    }

    /** A read of {@code channelId} at {@code position} found nothing more to read. */
    public synchronized void caughtUp(String channelId, ChannelPosition position) {
        if (position.isFinished()) {
            forget(channelId);
            return;
        }
        if (!position.equals(caughtUp.put(channelId, position))) {
            changed = true;
        }
    }

    /** A read of {@code channelId} found records, or it is read without knowing. */
    public synchronized void behind(String channelId) {
        forget(channelId);
    }

    /** {@code channelId} is no longer read here (finished, or read elsewhere). */
    public synchronized void forget(String channelId) {
        if (caughtUp.remove(channelId) != null) {
            changed = true;
        }
    }

    /** The report as it stands. */
    public synchronized ConsumerProgress current() {
        return new ConsumerProgress(holder, clockMillis.getAsLong(), caughtUp);
    }

    /** Report writes attempted so far, failed ones included (tests, metrics). */
    public synchronized int writeAttempts() {
        return writeAttempts;
    }

    /**
     * From now on the report is written with other consumers' ({@link TunnelConsumer#reportAll}),
     * and {@link #flushIfDue()} leaves it.
     */
    public synchronized void writeWithOthers() {
        withOthers = true;
    }

    /**
     * The report when it changed or is due for a refresh, counted as written from now on; empty
     * when not due, or when it is not written the way asked ({@code together}: with others').
     */
    synchronized Optional<ConsumerProgress> takeDue(boolean together) {
        if (withOthers != together) {
            return Optional.empty();
        }
        long sinceLast = nanoClock.getAsLong() - lastWriteNanos;
        boolean due =
                everWritten
                        ? (changed && sinceLast >= MIN_INTERVAL.toNanos())
                                || (!caughtUp.isEmpty() && sinceLast >= REFRESH_EVERY.toNanos())
                        : !caughtUp.isEmpty();
        if (!due) {
            return Optional.empty();
        }
        changed = false;
        everWritten = true;
        lastWriteNanos = nanoClock.getAsLong();
        writeAttempts++;
        return Optional.of(current());
    }

    /** Writes the report when it changed or is due for a refresh. */
    public void flushIfDue() {
        Optional<ConsumerProgress> due = takeDue(false);
        if (due.isEmpty()) {
            return;
        }
        ConsumerProgress report = due.get();
        try {
            if (!meta.reportProgress(report)) {
                LOG.debug("The catch-up report of tunnel {} changed meanwhile; retrying", tunnelId);
                markChanged();
            }
        } catch (OwnershipLostException e) {
            throw e; // the consumer stops; a report is not worth hiding that
        } catch (MetaTableException | TunnelException e) {
            LOG.warn(
                    "Could not write the catch-up report of tunnel {}; retrying: {}",
                    tunnelId,
                    e.getMessage());
            markChanged();
        }
    }

    /** The report taken last was not written: the next flush writes it again. */
    synchronized void markChanged() {
        changed = true;
    }
}
