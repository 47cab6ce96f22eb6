package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds (or creates) the tunnel a consumer reads and refuses one it cannot read, for both engines:
 * a missing tunnel without {@code tunnel.create}, an expired tunnel, and a tunnel re-created under
 * the same name since the engine's state was saved. Each refusal says what to do.
 *
 * @param engine whose words the messages use
 * @param tableName the table the tunnel belongs to
 * @param tunnelName the tunnel's name
 * @param create the type to create the tunnel with when it is missing; empty: it must exist
 * @param start where a created tunnel starts
 */
@Internal
public record TunnelOpener(
        Engine engine,
        String tableName,
        String tunnelName,
        Optional<TunnelType> create,
        TunnelStart start) {

    public TunnelOpener {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(tunnelName, "tunnelName");
        Objects.requireNonNull(create, "create");
        Objects.requireNonNull(start, "start");
    }

    /**
     * Describes the tunnel, creating it first if it is missing and {@link #create} says so.
     *
     * @param savedTunnelId the tunnel id the engine's restored state belongs to, if any
     * @throws IllegalStateException naming the fix when the tunnel is missing, expired or not the
     *     one the saved state belongs to
     */
    public TunnelDescription open(TunnelProxy proxy, Optional<String> savedTunnelId) {
        TunnelDescription tunnel = describe(proxy);
        if (savedTunnelId.isPresent() && !savedTunnelId.get().equals(tunnel.tunnelId())) {
            throw recreated(savedTunnelId.get(), tunnel.tunnelId());
        }
        if (tunnel.expired()) {
            throw new IllegalStateException(
                    "Tunnel '"
                            + tunnelName
                            + "' (id "
                            + tunnel.tunnelId()
                            + ") of table '"
                            + tableName
                            + "' has expired: its stream data is past retention and cannot be"
                            + " read any more. Read through a new tunnel (a new tunnel.name, with "
                            + SourceOption.TUNNEL_CREATE.key()
                            + " and tunnel.start) and "
                            + engine.freshStart()
                            + ".");
        }
        return tunnel;
    }

    private TunnelDescription describe(TunnelProxy proxy) {
        try {
            return create.isPresent()
                    ? proxy.describeOrCreateTunnel(tableName, tunnelName, create.get(), start)
                    : proxy.describeTunnel(tableName, tunnelName);
        } catch (TunnelException e) {
            // The service answers OTSParameterInvalid, not a "not found" code, for a missing
            // tunnel.
            if (create.isEmpty()
                    && (e.kind() == TunnelException.Kind.NOT_FOUND
                            || e.kind() == TunnelException.Kind.INVALID)) {
                throw new IllegalStateException(missing(e), e);
            }
            throw e;
        }
    }

    private String missing(TunnelException e) {
        return "Tunnel '"
                + tunnelName
                + "' of table '"
                + tableName
                + "' does not exist (the server says: "
                + e.getMessage()
                + "): create it in the Tablestore console, or set option "
                + SourceOption.TUNNEL_CREATE.key()
                + " to stream, base or base-and-stream to let this "
                + engine.consumer()
                + " create it.";
    }

    private IllegalStateException recreated(String saved, String now) {
        return new IllegalStateException(
                "The "
                        + engine.consumer()
                        + "'s "
                        + engine.state()
                        + " belongs to tunnel id "
                        + saved
                        + " but tunnel '"
                        + tunnelName
                        + "' of table '"
                        + tableName
                        + "' now has id "
                        + now
                        + " (it was deleted and re-created), so the saved positions do not"
                        + " apply. To read the new tunnel from its start, "
                        + engine.freshStart()
                        + ".");
    }
}
