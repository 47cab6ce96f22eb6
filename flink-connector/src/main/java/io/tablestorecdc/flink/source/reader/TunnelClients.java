package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;

/**
 * The tunnel clients one reader reads with, one per table (the enumerator connects each table's
 * tunnel and sends its client by event), shared by the reader's mailbox thread, which sets them,
 * and its fetcher, which reads with them. A channel is read only once its table's client arrived.
 */
@Internal
public final class TunnelClients {

    /** The key of the one table of a source of one table. */
    private static final String ONE_TABLE = "";

    private final Map<String, TunnelClientId> byTable = new ConcurrentHashMap<>();

    /** Sets the client of {@code table} (empty in a source of one table). */
    public void set(Optional<String> table, TunnelClientId client) {
        byTable.put(table.orElse(ONE_TABLE), client);
    }

    /** The client of {@code table} (empty in a source of one table), if it arrived. */
    public Optional<TunnelClientId> of(Optional<String> table) {
        return Optional.ofNullable(byTable.get(table.orElse(ONE_TABLE)));
    }
}
