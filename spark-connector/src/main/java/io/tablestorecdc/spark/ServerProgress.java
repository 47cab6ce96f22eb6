package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes the positions of durably committed batches to the tunnel server (invariant 3): progress
 * the Tablestore console shows, and the {@code finished} that lets the server open children.
 *
 * <p>Only for visibility and lineage: correctness never depends on a push having happened. A failed
 * push is retried with the next committed batch, which re-plans from what was acknowledged. So a
 * push of positions only runs in the background, one batch at a time, skipping to the newest
 * committed batch: the Tunnel API takes one request per channel, and a thousand channels pushed
 * before planning took most of a batch's driver time. It starts at most once per {@code
 * server.progress.interval} (as the SDK's own tunnel worker checkpoints): a push of a thousand
 * channels after every batch, even in the background, took a third of the driver's time per batch
 * on two cores. The newest committed batch is always pushed within the interval, idle or not, and
 * at once when the query stops. A push that finishes channels is made before {@link #pushCommitted}
 * returns, whatever the interval, so the next planning can see the children it opens.
 */
final class ServerProgress implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServerProgress.class);

    /** How long stopping waits for the last push (the next consumer starts from it). */
    static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(30);

    private final SourceConnection connection;
    private final ScheduledExecutorService pusher;
    private final long intervalNanos;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile long lastPushNanos;
    private volatile boolean pushedOnce;
    private final AtomicReference<BatchSnapshot> newest = new AtomicReference<>();
    private final AtomicReference<RuntimeException> stopping = new AtomicReference<>();
    private final Object pushLock = new Object();
    private final ServerPushLedger ledger;
    private Optional<BatchToken> lastPushed = Optional.empty();

    private volatile boolean closed;

    /**
     * Pushes on the query's shared {@code pusher} threads (one push of this tunnel at a time
     * whatever their number), which {@link #close()} leaves running.
     */
    ServerProgress(
            SourceConnection connection, Duration interval, ScheduledExecutorService pusher) {
        this.connection = connection;
        this.intervalNanos = interval.toNanos();
        this.ledger = connection.consumer().pushes();
        this.pusher = pusher;
    }

    /**
     * Pushes {@code committed}, which the engine has durably committed: in the background, unless
     * it finishes a channel. Idempotent per token. Throws a failure of an earlier push that stopped
     * the tunnel client.
     */
    void pushCommitted(BatchSnapshot committed) {
        throwIfStopped();
        if (ledger.preview(committed).finishes().isEmpty()) {
            newest.set(committed);
            scheduleNext();
            return;
        }
        flush();
        push(committed);
        throwIfStopped();
    }

    /** How long the next push of positions waits: the rest of the interval since the last push. */
    private long untilNextPushNanos() {
        return pushedOnce ? Math.max(0, lastPushNanos + intervalNanos - System.nanoTime()) : 0;
    }

    /** Schedules the push of the newest committed batch, unless one is scheduled already. */
    private void scheduleNext() {
        if (scheduled.compareAndSet(false, true)) {
            pusher.schedule(this::scheduledPush, untilNextPushNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** A batch committed while this one pushed gets the next push, an interval later. */
    private void scheduledPush() {
        if (closed) {
            return;
        }
        pushNewest();
        scheduled.set(false);
        if (newest.get() != null) {
            scheduleNext();
        }
    }

    /** Makes every push asked for so far now, whatever the interval, and waits for it. */
    void flush() {
        try {
            pusher.submit(this::pushNewest).get(FLUSH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("The last progress push to the tunnel server did not end: {}", e.toString());
        }
    }

    /** Makes the pending push; later pushes of this tunnel are not made. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!pusher.isShutdown()) {
            flush();
        }
        closed = true;
    }

    private void throwIfStopped() {
        RuntimeException e = stopping.get();
        if (e != null) {
            throw e;
        }
    }

    private void pushNewest() {
        BatchSnapshot committed = newest.getAndSet(null);
        if (committed != null) {
            push(committed);
        }
    }

    private synchronized boolean alreadyPushed(BatchSnapshot committed) {
        return lastPushed.equals(Optional.of(committed.token())) || stopping.get() != null;
    }

    private synchronized void pushed(BatchSnapshot committed) {
        lastPushed = Optional.of(committed.token());
    }

    /** One push at a time; the state lock is held only around planning and recording. */
    private void push(BatchSnapshot committed) {
        synchronized (pushLock) {
            if (!alreadyPushed(committed)) {
                lastPushNanos = System.nanoTime();
                pushedOnce = true;
                ServerCommitPlan plan = ledger.plan(committed);
                if (send(committed, plan)) {
                    pushed(committed);
                }
            }
        }
    }

    /**
     * Sends the plan through the consumer, which fences it by the owner lease, records it in the
     * ledger and, after finishes, heartbeats at once (children open sooner).
     */
    private boolean send(BatchSnapshot committed, ServerCommitPlan plan) {
        try {
            connection.consumer().push(plan);
        } catch (OwnershipLostException e) {
            stopping.compareAndSet(null, e);
            return false;
        } catch (TunnelException e) {
            if (e.stopsClient()) {
                stopping.compareAndSet(null, e);
                return false;
            }
            LOG.warn(
                    "Could not push the progress of batch {} to the tunnel server; retrying with"
                            + " the next batch: {}",
                    committed.token(),
                    e.getMessage());
            return false;
        }
        if (!plan.finishes().isEmpty()) {
            connection.markFinished(plan.finishes());
        }
        return true;
    }
}
