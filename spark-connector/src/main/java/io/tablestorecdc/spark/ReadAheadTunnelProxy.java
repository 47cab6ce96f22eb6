package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.PageReadAhead;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.concurrent.Executor;

/**
 * A task's tunnel proxy that asks for a channel's next page while the task converts the current
 * one, so that the server's time and the task's time overlap instead of adding up.
 *
 * <p>After a page that says the server may have more, the page at its next token is requested in
 * the background ({@link PageReadAhead}); the reader's next {@code readRecords} of that token takes
 * the answer (or its error). Any other request is sent as usual. Reading ahead stops once the pages
 * fetched hold the records the task may deliver; a page the reader does not take (its time budget
 * ran out) is dropped. Used by one task thread; at most one page is read ahead at a time.
 */
final class ReadAheadTunnelProxy extends ForwardingTunnelProxy {

    private final PageReadAhead ahead;
    private final long recordsWanted;
    private long recordsFetched;

    /**
     * @param recordsWanted records after the first requested token the task may need (its cap plus
     *     the records its start position skips); no page is read ahead past them
     */
    ReadAheadTunnelProxy(TunnelProxy delegate, Executor executor, long recordsWanted) {
        super(delegate);
        this.ahead = new PageReadAhead(delegate, executor);
        this.recordsWanted = recordsWanted;
    }

    /** Starts reading the page at {@code token} in the background. */
    void readAhead(TunnelClientId client, String channelId, String token) {
        ahead.request(client, channelId, token);
    }

    @Override
    public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
        ReadResult page = ahead.read(client, channelId, token);
        recordsFetched += page.records().size();
        if (page.mayMoreRecord() && !page.isFinished() && recordsFetched < recordsWanted) {
            readAhead(client, channelId, page.next().token());
        }
        return page;
    }

    /** Drops a page still in flight; the shared proxy underneath stays open. */
    @Override
    public void close() {
        ahead.drop();
    }
}
