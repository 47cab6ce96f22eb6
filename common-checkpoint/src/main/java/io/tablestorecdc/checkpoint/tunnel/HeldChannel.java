package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.Objects;

/**
 * A channel as this client reports it in a heartbeat: id, version and the status the client holds.
 *
 * <p>{@code WAIT} is rejected: it is not a status a client may report, and the SDK's heartbeat
 * message has no value for it.
 *
 * @param channelId the server's channel id
 * @param version the version this client holds; the higher version wins on both sides
 * @param status OPEN, CLOSING, CLOSE or TERMINATED
 */
@Internal
public record HeldChannel(String channelId, long version, ServerChannelStatus status) {

    public HeldChannel {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(status, "status");
        if (status == ServerChannelStatus.WAIT) {
            throw new IllegalArgumentException(
                    "Channel "
                            + channelId
                            + " is WAIT, which a heartbeat must never carry: report only channels"
                            + " the server assigned (OPEN, CLOSING, CLOSE or TERMINATED)");
        }
    }
}
