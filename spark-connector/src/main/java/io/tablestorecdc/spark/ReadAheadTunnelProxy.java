package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * A task's tunnel proxy that asks for a channel's next page while the task converts the current
 * one, so that the server's time and the task's time overlap instead of adding up.
 *
 * <p>After a page that says the server may have more, the page at its next token is requested in
 * the background; the reader's next {@code readRecords} of that token takes the answer (or its
 * error). Any other request is sent as usual. A tunnel token always names the same records, so a
 * page read early is the page the reader would have read: replays stay exact (invariant 1). Reading
 * ahead stops once the pages fetched hold the records the task may deliver; a page the reader does
 * not take (its time budget ran out) is dropped. Used by one task thread; at most one page is read
 * ahead at a time.
 */
final class ReadAheadTunnelProxy extends ForwardingTunnelProxy {

    private final Executor executor;
    private final long recordsWanted;
    private long recordsFetched;
    private Pending pending;

    /**
     * @param recordsWanted records after the first requested token the task may need (its cap plus
     *     the records its start position skips); no page is read ahead past them
     */
    ReadAheadTunnelProxy(TunnelProxy delegate, Executor executor, long recordsWanted) {
        super(delegate);
        this.executor = executor;
        this.recordsWanted = recordsWanted;
    }

    /** Starts reading the page at {@code token} in the background, unless one is in flight. */
    void readAhead(TunnelClientId client, String channelId, String token) {
        if (pending == null) {
            CompletableFuture<ReadResult> page =
                    CompletableFuture.supplyAsync(
                            () -> super.readRecords(client, channelId, token), executor);
            pending = new Pending(client, channelId, token, page);
        }
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        ReadResult page = take(client, channelId, token);
        recordsFetched += page.records().size();
        if (page.mayMoreRecord() && !page.isFinished() && recordsFetched < recordsWanted) {
            readAhead(client, channelId, page.next().token());
        }
        return page;
    }

    private ReadResult take(TunnelClientId client, String channelId, String token) {
        Pending ahead = pending;
        pending = null;
        if (ahead == null) {
            return super.readRecords(client, channelId, token);
        }
        if (!ahead.isFor(client, channelId, token)) {
            ahead.page.cancel(false);
            return super.readRecords(client, channelId, token);
        }
        return await(ahead.page);
    }

    private static ReadResult await(CompletableFuture<ReadResult> page) {
        try {
            return page.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            page.cancel(true);
            throw new TunnelException(
                    TunnelException.Kind.INTERRUPTED,
                    "Interrupted while waiting for a tunnel page read ahead; the task was"
                            + " cancelled and Spark reruns it if the batch still needs it.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        } catch (CancellationException e) {
            throw new IllegalStateException("A tunnel page read ahead was cancelled", e);
        }
    }

    /** Drops a page still in flight; the shared proxy underneath stays open. */
    @Override
    public void close() {
        if (pending != null) {
            pending.page.cancel(false);
            pending = null;
        }
    }

    private record Pending(
            TunnelClientId client,
            String channelId,
            String token,
            CompletableFuture<ReadResult> page) {

        boolean isFor(TunnelClientId c, String channel, String t) {
            return client.equals(c) && channelId.equals(channel) && token.equals(t);
        }
    }
}
