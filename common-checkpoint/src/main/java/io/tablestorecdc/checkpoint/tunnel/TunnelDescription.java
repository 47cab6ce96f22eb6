package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A tunnel and its channels as the server describes them.
 *
 * @param tunnelId the server's id; changes when a tunnel is re-created under the same name
 * @param tunnelName the tunnel's name
 * @param tableName the table the tunnel reads
 * @param type base data, stream, or both
 * @param stage where a base-and-stream tunnel is in its hand-over, when the server says
 * @param expired true when the tunnel's stream data is past retention; it cannot be read any more
 * @param channels every channel the server lists, with type and status
 */
@Internal
public record TunnelDescription(
        String tunnelId,
        String tunnelName,
        String tableName,
        TunnelType type,
        Optional<Stage> stage,
        boolean expired,
        List<ServerChannel> channels) {

    /** A tunnel's processing stage. */
    public enum Stage {
        /** The server is preparing base-data and stream channels. */
        INIT_BASE_AND_STREAM,
        /** Base-data channels are being read. */
        PROCESS_BASE_DATA,
        /** Stream channels are being read. */
        PROCESS_STREAM
    }

    public TunnelDescription {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(tunnelName, "tunnelName");
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(stage, "stage");
        channels = List.copyOf(channels);
    }

    public Optional<ServerChannel> channel(String channelId) {
        return channels.stream().filter(c -> c.channelId().equals(channelId)).findFirst();
    }
}
