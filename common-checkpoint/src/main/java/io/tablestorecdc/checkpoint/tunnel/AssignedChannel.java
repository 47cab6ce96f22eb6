package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.Objects;

/**
 * A channel as the server returns it in a heartbeat response: the server's view of what this client
 * holds.
 *
 * @param channelId the server's channel id
 * @param version the server's version; a higher version wins over the client's copy
 * @param status the status the server gives this client for the channel
 */
@Internal
public record AssignedChannel(String channelId, long version, ServerChannelStatus status) {

    public AssignedChannel {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(status, "status");
    }
}
