package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
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
    private final AtomicReference<TunnelException> stopping = new AtomicReference<>();
    private final Object pushLock = new Object();
    private final ServerPushLedger ledger = new ServerPushLedger();
    private Optional<BatchToken> lastPushed = Optional.empty();

    ServerProgress(SourceConnection connection, String tunnelName, Duration interval) {
        this.connection = connection;
        this.intervalNanos = interval.toNanos();
        this.pusher =
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("tablestore-cdc-progress-" + tunnelName));
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

    /** Makes the pending push, then stops the pusher. */
    @Override
    public void close() {
        if (!pusher.isShutdown()) {
            flush();
        }
        pusher.shutdownNow();
    }

    private void throwIfStopped() {
        TunnelException e = stopping.get();
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
                    ledger.acknowledged(plan);
                    pushed(committed);
                } else {
                    ledger.failed(plan);
                }
            }
        }
    }

    private boolean send(BatchSnapshot committed, ServerCommitPlan plan) {
        Map<String, ChannelPosition> all = new TreeMap<>(plan.positions());
        plan.finishes().forEach(id -> all.put(id, ChannelPosition.finished()));
        try {
            checkpointAll(all);
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
            // Report TERMINATED now rather than at the next scheduled heartbeat: children open
            // sooner.
            connection.session().heartbeatOnce();
        }
        return true;
    }

    /**
     * One checkpoint request per channel, several at once. Waits for every request (none may still
     * run when the next batch is pushed), then throws the first failure, preferring one that stops
     * the client.
     */
    private void checkpointAll(Map<String, ChannelPosition> positions) {
        List<CompletableFuture<Void>> requests = new ArrayList<>(positions.size());
        positions.forEach(
                (id, position) ->
                        requests.add(
                                CompletableFuture.runAsync(
                                        () -> connection.session().checkpoint(id, position),
                                        connection.requests())));
        List<TunnelException> failures = new ArrayList<>();
        requests.forEach(request -> failureOf(request).ifPresent(failures::add));
        Optional<TunnelException> first =
                failures.stream()
                        .filter(TunnelException::stopsClient)
                        .findFirst()
                        .or(() -> failures.stream().findFirst());
        if (first.isPresent()) {
            throw first.get();
        }
    }

    private static Optional<TunnelException> failureOf(CompletableFuture<Void> request) {
        try {
            SourceConnection.joined(request);
            return Optional.empty();
        } catch (TunnelException e) {
            return Optional.of(e);
        }
    }
}
