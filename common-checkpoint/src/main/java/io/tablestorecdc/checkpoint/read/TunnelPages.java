package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.PageReadAhead;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the channel readers of one engine reader (a Spark task, a Flink split reader) get their
 * responses: the one place that asks the server for records, with at most one page read ahead
 * ({@link PageReadAhead}) and a count of the requests sent, for the engine's metrics.
 *
 * <p>The proxy is borrowed: {@link #close()} drops the page ahead and leaves the proxy open. Used
 * by one reader thread (the count may be read from any thread).
 */
@Internal
public final class TunnelPages implements AutoCloseable {

    private final Counting counting;
    private final Optional<PageReadAhead> ahead;

    private TunnelPages(TunnelProxy proxy, Optional<Executor> aheadExecutor) {
        this.counting = new Counting(proxy);
        this.ahead = aheadExecutor.map(executor -> new PageReadAhead(counting, executor));
    }

    /** Pages read when asked for, never ahead. */
    public static TunnelPages direct(TunnelProxy proxy) {
        return new TunnelPages(proxy, Optional.empty());
    }

    /** Pages that may be read ahead on {@code executor}. */
    public static TunnelPages readingAhead(TunnelProxy proxy, Executor executor) {
        return new TunnelPages(proxy, Optional.of(Objects.requireNonNull(executor, "executor")));
    }

    /** The response at {@code token}: the page read ahead when it is that one, else read now. */
    public ReadResult read(TunnelClientId client, String channelId, String token) {
        return ahead.isPresent()
                ? ahead.get().read(client, channelId, token)
                : counting.readRecords(client, channelId, token);
    }

    /**
     * Starts reading the response at {@code position} in the background (dropping another page
     * ahead); nothing when the position is finished or these pages are not read ahead.
     */
    public void readAhead(TunnelClientId client, String channelId, ChannelPosition position) {
        if (ahead.isPresent() && !position.isFinished()) {
            ahead.get().request(client, channelId, position.token());
        }
    }

    /** {@code readRecords} requests sent so far, read ahead or not (each may have been retried). */
    public long readRequests() {
        return counting.requests.get();
    }

    /** Drops the page ahead, if any (a request in flight is left to end on its own). */
    public void drop() {
        ahead.ifPresent(PageReadAhead::drop);
    }

    /** Drops the page ahead; the borrowed proxy stays open. */
    @Override
    public void close() {
        drop();
    }

    /** Counts the requests that reach the proxy, from the reader's and the read-ahead thread. */
    private static final class Counting extends ForwardingTunnelProxy {
        private final AtomicLong requests = new AtomicLong();

        Counting(TunnelProxy delegate) {
            super(delegate);
        }

        @Override
        public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
            requests.incrementAndGet();
            return super.readRecords(client, channelId, token);
        }

        @Override
        public void close() {}
    }
}
