package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The complete set of channel positions stored under one batch token (invariant 6): one entry for
 * every channel known at that batch, including channels not read in it and finished tombstones.
 *
 * @param tunnelId the tunnel the positions belong to; snapshots of another tunnel (one re-created
 *     under the same name) are never applied
 * @param token the batch token the snapshot is stored under
 * @param channels entries by channel id, sorted by id
 */
@Internal
public record BatchSnapshot(
        String tunnelId, BatchToken token, Map<String, ChannelCheckpoint> channels) {

    public BatchSnapshot {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(token, "token");
        TreeMap<String, ChannelCheckpoint> sorted = new TreeMap<>();
        for (Map.Entry<String, ChannelCheckpoint> e : channels.entrySet()) {
            if (!e.getKey().equals(e.getValue().channelId())) {
                throw new IllegalArgumentException(
                        "Snapshot entry key "
                                + e.getKey()
                                + " holds channel "
                                + e.getValue().channelId());
            }
            sorted.put(e.getKey(), e.getValue());
        }
        channels = Collections.unmodifiableMap(sorted);
    }

    public Optional<ChannelCheckpoint> channel(String channelId) {
        return Optional.ofNullable(channels.get(channelId));
    }

    /** True when every channel in the snapshot is finished (and there is at least one). */
    public boolean allFinished() {
        return !channels.isEmpty()
                && channels.values().stream().allMatch(ChannelCheckpoint::isFinished);
    }
}
