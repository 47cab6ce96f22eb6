package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Objects;

/**
 * A channel whose server state is ahead of the engine's committed state (the engine was restored
 * from an older checkpoint or savepoint after this consumer had pushed later progress). The engine
 * wins; the channel is re-read from {@code enginePosition}.
 *
 * @param channelId the channel
 * @param enginePosition where the engine's committed state (or adoption record) resumes it
 * @param serverState what the server says, e.g. "TERMINATED"
 */
@Internal
public record ServerAhead(String channelId, ChannelPosition enginePosition, String serverState) {

    public ServerAhead {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(enginePosition, "enginePosition");
        Objects.requireNonNull(serverState, "serverState");
    }

    /** A log line for the warning. */
    public String message() {
        return "Channel "
                + channelId
                + ": the tunnel server is ahead of the engine's committed state (server: "
                + serverState
                + "); resuming from the engine's position "
                + enginePosition
                + ", records after it are read again";
    }
}
