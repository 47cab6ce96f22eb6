package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.PurgeResult;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old meta snapshots after Spark's commits, on a thread of its own (invariant 7).
 *
 * <p>Spark calls the source's {@code commit} inside the next batch's offset-log write ({@code
 * walCommit} in the query progress), on the stream thread: a purge there delays every batch by the
 * deletes of a whole expired snapshot (a thousand rows at a thousand channels). Off that thread, a
 * purge may overlap the next planning; that is safe because it keeps the newest batches and every
 * base a kept batch names, and a batch planned meanwhile builds only on the newest one (its start)
 * or that one's base. Requests made while a purge waits to run are one purge. A purge the meta
 * table refused is logged and made again at the next commit (purging is resumable); any other
 * failure (another consumer took the tunnel over, say) is thrown by the next {@link #request}, so
 * the query fails as it did when purges ran on its thread, one commit later.
 */
final class BackgroundPurge implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundPurge.class);

    /** How long stopping waits for a purge in progress. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final TunnelMeta meta;
    private final String tunnelId;
    private final int keepLastBatches;
    private final ExecutorService thread;
    private final AtomicBoolean waiting = new AtomicBoolean();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    private final boolean ownsThread;
    private volatile boolean closed;

    /** Purges on a thread of its own. */
    BackgroundPurge(TunnelMeta meta, int keepLastBatches, String tunnelName) {
        this(
                meta,
                keepLastBatches,
                Executors.newSingleThreadExecutor(
                        DaemonThreads.named("tablestore-cdc-purge-" + tunnelName)),
                true);
    }

    /** Purges on the query's shared {@code thread}, which {@link #close()} leaves running. */
    BackgroundPurge(TunnelMeta meta, int keepLastBatches, ExecutorService thread) {
        this(meta, keepLastBatches, thread, false);
    }

    private BackgroundPurge(
            TunnelMeta meta, int keepLastBatches, ExecutorService thread, boolean ownsThread) {
        this.meta = meta;
        this.tunnelId = meta.tunnelId();
        this.keepLastBatches = keepLastBatches;
        this.thread = thread;
        this.ownsThread = ownsThread;
    }

    /**
     * Asks for a purge; returns at once.
     *
     * @throws RuntimeException what an earlier purge threw, other than a refused meta request
     */
    void request() {
        RuntimeException failed = failure.getAndSet(null);
        if (failed != null) {
            throw failed;
        }
        if (!closed && !thread.isShutdown() && waiting.compareAndSet(false, true)) {
            thread.execute(this::purge);
        }
    }

    /** Waits until every purge asked for so far has ended (for tests and for stopping). */
    void awaitIdle(Duration timeout) {
        try {
            thread.submit(() -> {}).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("The last purge of old meta snapshots did not end: {}", e.toString());
        }
    }

    private void purge() {
        waiting.set(false);
        if (closed) {
            return;
        }
        try {
            PurgeResult purged = meta.purge(keepLastBatches);
            LOG.debug("Purged old meta snapshots of tunnel {}: {}", tunnelId, purged);
        } catch (MetaTableException e) {
            LOG.warn(
                    "Could not purge old meta snapshots; retrying at the next commit: {}",
                    e.getMessage());
        } catch (RuntimeException e) {
            failure.set(e);
        }
    }

    /** Lets a purge in progress end (bounded), then stops the thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!thread.isShutdown()) {
            awaitIdle(STOP_TIMEOUT);
        }
        closed = true;
        if (ownsThread) {
            thread.shutdownNow();
        }
    }
}
