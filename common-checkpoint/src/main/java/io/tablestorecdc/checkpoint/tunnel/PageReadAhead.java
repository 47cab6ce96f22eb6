package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * One tunnel page requested before its reader asks for it, so that the server's time and the
 * reader's own work overlap instead of adding up.
 *
 * <p>A tunnel token always names the same records, so a page read early is the page the reader
 * would have read: replays stay exact (invariant 1). {@link #request} starts reading a page in the
 * background; {@link #read} returns it (or its error) when asked for the same client, channel and
 * token, and otherwise reads as usual, leaving the page ahead for later. At most one page is ahead:
 * a request for another page drops it. Used by one reader thread.
 */
@Internal
public final class PageReadAhead {

    private final TunnelProxy proxy;
    private final Executor executor;
    private Optional<Pending> pending = Optional.empty();

    public PageReadAhead(TunnelProxy proxy, Executor executor) {
        this.proxy = proxy;
        this.executor = executor;
    }

    /** Starts reading the page at {@code token}, unless it is already ahead. */
    public void request(TunnelClientId client, String channelId, String token) {
        if (pending.isPresent() && pending.get().isFor(client, channelId, token)) {
            return;
        }
        drop();
        CompletableFuture<ReadResult> page =
                CompletableFuture.supplyAsync(
                        () -> proxy.readRecords(client, channelId, token), executor);
        pending = Optional.of(new Pending(client, channelId, token, page));
    }

    /** The page at {@code token}: the one read ahead when it is that page, else read now. */
    public ReadResult read(TunnelClientId client, String channelId, String token) {
        if (pending.isPresent() && pending.get().isFor(client, channelId, token)) {
            CompletableFuture<ReadResult> page = pending.get().page();
            pending = Optional.empty();
            return await(page);
        }
        return proxy.readRecords(client, channelId, token);
    }

    /** Drops the page ahead, if any (a request in flight is left to end on its own). */
    public void drop() {
        pending.ifPresent(p -> p.page().cancel(false));
        pending = Optional.empty();
    }

    private static ReadResult await(CompletableFuture<ReadResult> page) {
        try {
            return page.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            page.cancel(true);
            throw new TunnelException(
                    TunnelException.Kind.INTERRUPTED,
                    "Interrupted while waiting for a tunnel page read ahead; the reader was"
                            + " cancelled and the engine reruns it from its last position.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        } catch (CancellationException e) {
            throw new IllegalStateException("A tunnel page read ahead was cancelled", e);
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
