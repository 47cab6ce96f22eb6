package io.tablestorecdc.flink.source.event;

import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader: the tunnel client to read with. The enumerator is the tunnel client, and
 * its id changes whenever it reconnects (for example after a JobManager failover), so readers get
 * it by event rather than inside their (checkpointed) splits. With it come the channels a reader
 * must not read but end as finished: restored channels whose changes the server can no longer
 * serve, skipped under {@code on.server.ahead=skip} (before the client id, so none is read first);
 * and the restored channels that only the reader holding them can judge ({@link
 * ServerFinishedCheck}). In a source of several tables each table has its client, and the event
 * names the table; its channel ids are the table's, not split ids.
 */
@Internal
public final class TunnelClientEvent implements SourceEvent {

    private static final long serialVersionUID = 2L;

    /** The table, null in a source of one table. */
    private final String table;

    private final TunnelClientId clientId;
    private final Set<String> skipped;
    private final ServerFinishedCheck serverFinished;

    public TunnelClientEvent(TunnelClientId clientId) {
        this(clientId, Set.of());
    }

    public TunnelClientEvent(TunnelClientId clientId, Set<String> skipped) {
        this(clientId, skipped, ServerFinishedCheck.none());
    }

    public TunnelClientEvent(
            TunnelClientId clientId, Set<String> skipped, ServerFinishedCheck serverFinished) {
        this(Optional.empty(), clientId, skipped, serverFinished);
    }

    private TunnelClientEvent(
            Optional<String> table,
            TunnelClientId clientId,
            Set<String> skipped,
            ServerFinishedCheck serverFinished) {
        this.table = table.orElse(null);
        this.clientId = Objects.requireNonNull(clientId);
        this.skipped = Set.copyOf(skipped);
        this.serverFinished = Objects.requireNonNull(serverFinished);
    }

    /** This event for the client of {@code name}, one table of a source of several. */
    public TunnelClientEvent forTable(String name) {
        return new TunnelClientEvent(Optional.of(name), clientId, skipped, serverFinished);
    }

    /** The table whose client this is; empty in a source of one table. */
    public Optional<String> table() {
        return Optional.ofNullable(table);
    }

    public TunnelClientId clientId() {
        return clientId;
    }

    /** Channels to end as finished without reading them. */
    public Set<String> skipped() {
        return skipped;
    }

    /** Restored channels the server finished that the reader holding them must judge. */
    public ServerFinishedCheck serverFinished() {
        return serverFinished;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TunnelClientEvent
                && Objects.equals(((TunnelClientEvent) o).table, table)
                && ((TunnelClientEvent) o).clientId.equals(clientId)
                && ((TunnelClientEvent) o).skipped.equals(skipped)
                && ((TunnelClientEvent) o).serverFinished.equals(serverFinished);
    }

    @Override
    public int hashCode() {
        return clientId.hashCode();
    }

    @Override
    public String toString() {
        return "TunnelClientEvent{"
                + (table == null ? "" : table + ", ")
                + clientId.clientId()
                + "}";
    }
}
