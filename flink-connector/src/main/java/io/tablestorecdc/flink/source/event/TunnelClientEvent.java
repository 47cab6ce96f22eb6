package io.tablestorecdc.flink.source.event;

import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader: the tunnel client to read with. The enumerator is the tunnel client, and
 * its id changes whenever it reconnects (for example after a JobManager failover), so readers get
 * it by event rather than inside their (checkpointed) splits.
 */
@Internal
public final class TunnelClientEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final TunnelClientId clientId;

    public TunnelClientEvent(TunnelClientId clientId) {
        this.clientId = Objects.requireNonNull(clientId);
    }

    public TunnelClientId clientId() {
        return clientId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TunnelClientEvent && ((TunnelClientEvent) o).clientId.equals(clientId);
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
