package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Channels that are unfinished in the committed meta snapshot are no longer listed by the tunnel
 * server. Callers may re-list once or twice (a listing can lag) before letting this surface.
 */
@Internal
public final class VanishedChannelException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String tunnelId;
    private final List<String> channelIds;

    public VanishedChannelException(String tunnelId, BatchToken token, Set<String> channelIds) {
        super(message(tunnelId, token, channelIds));
        this.tunnelId = tunnelId;
        this.channelIds = List.copyOf(new TreeSet<>(channelIds));
    }

    public String tunnelId() {
        return tunnelId;
    }

    /** The vanished channel ids, sorted. */
    public List<String> channelIds() {
        return channelIds;
    }

    private static String message(String tunnelId, BatchToken token, Set<String> channelIds) {
        return "Tunnel "
                + tunnelId
                + " no longer lists channel(s) "
                + new TreeSet<>(channelIds)
                + ", which are unfinished in the committed meta snapshot "
                + token
                + ": their unread records can no longer be reached through this tunnel. If the"
                + " tunnel was re-created or its channels were dropped on purpose, set "
                + VanishedChannelPolicy.OPTION_KEY
                + "=warn to keep them as unread entries (reported as vanished) and continue;"
                + " otherwise check that the configured tunnel is the one this meta table was"
                + " written for.";
    }
}
