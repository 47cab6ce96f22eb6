package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Map;
import java.util.Optional;

/**
 * The tunnel server's checkpoint of a channel, looked up only for channels this consumer adopts
 * (one request per new channel, never one per known channel per batch).
 */
@FunctionalInterface
@Internal
public interface ServerCheckpoints {

    /**
     * The server's checkpoint for {@code channelId}, or empty if the server has none yet (a {@code
     * WAIT} channel may have none until it opens).
     */
    Optional<ChannelPosition> checkpointOf(String channelId);

    /** Checkpoints from a map, for callers that fetched them already and for tests. */
    static ServerCheckpoints of(Map<String, ChannelPosition> checkpoints) {
        Map<String, ChannelPosition> copy = Map.copyOf(checkpoints);
        return id -> Optional.ofNullable(copy.get(id));
    }
}
