package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.Serializable;
import java.util.Objects;

/**
 * The identity of this consumer's tunnel client: the tunnel it connected to and the client id the
 * server returned.
 *
 * <p>Serializable because readers (Spark executors, Flink readers) call {@code readRecords} with
 * the client id of the driver or enumerator that connected.
 *
 * @param tunnelId the server's tunnel id
 * @param clientId the id {@code connect} returned
 */
@Internal
public record TunnelClientId(String tunnelId, String clientId) implements Serializable {

    private static final long serialVersionUID = 1L;

    public TunnelClientId {
        requireText(tunnelId, "tunnelId");
        requireText(clientId, "clientId");
    }

    private static void requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException("A tunnel client needs a non-empty " + what);
        }
    }
}
