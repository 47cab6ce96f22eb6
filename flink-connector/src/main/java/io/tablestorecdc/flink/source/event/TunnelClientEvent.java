package io.tablestorecdc.flink.source.event;

import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.Objects;
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
 * ServerFinishedCheck}).
 */
@Internal
public final class TunnelClientEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

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
        this.clientId = Objects.requireNonNull(clientId);
        this.skipped = Set.copyOf(skipped);
        this.serverFinished = Objects.requireNonNull(serverFinished);
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
        return "TunnelClientEvent{" + clientId.clientId() + "}";
    }
}
