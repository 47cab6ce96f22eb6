package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * One channel of a tunnel as the server lists it.
 *
 * @param channelId the server's channel id
 * @param type base data or stream
 * @param status the server's status for this channel
 * @param clientId the client the server assigned it to, if any
 * @param consumePointMillis the server's checkpoint time for the channel (0 when unknown)
 */
@Internal
public record ServerChannel(
        String channelId,
        ChannelType type,
        ServerChannelStatus status,
        Optional<String> clientId,
        long consumePointMillis) {

    public ServerChannel {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(clientId, "clientId");
    }

    public static ServerChannel of(String channelId, ChannelType type, ServerChannelStatus status) {
        return new ServerChannel(channelId, type, status, Optional.empty(), 0L);
    }

    public boolean isOpen() {
        return status == ServerChannelStatus.OPEN;
    }
}
