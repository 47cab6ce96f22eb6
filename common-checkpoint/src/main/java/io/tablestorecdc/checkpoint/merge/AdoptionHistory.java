package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Map;
import java.util.Optional;

/**
 * The first position at which this consumer ever adopted a channel, kept by the meta table
 * independently of any one snapshot.
 *
 * <p>When the engine restarts from an older checkpoint or savepoint, a channel it adopted later is
 * missing from the older snapshot while the server's checkpoint for it has moved on; starting at
 * the server checkpoint would skip what the engine never committed (invariant 5), so such a channel
 * restarts at its recorded adoption position.
 */
@FunctionalInterface
@Internal
public interface AdoptionHistory {

    /** Where this consumer first adopted {@code channelId}, or empty if it never did. */
    Optional<ChannelPosition> firstAdoptedAt(String channelId);

    /**
     * Where a channel the engine's state does not hold starts (invariant 5): where this consumer
     * first adopted it, if it did, otherwise at {@code serverCheckpoint}.
     */
    default ChannelPosition startOf(String channelId, ChannelPosition serverCheckpoint) {
        return firstAdoptedAt(channelId).orElse(serverCheckpoint);
    }

    /** No history: every channel absent from the snapshot is new to this consumer. */
    static AdoptionHistory none() {
        return id -> Optional.empty();
    }

    static AdoptionHistory of(Map<String, ChannelPosition> adoptions) {
        Map<String, ChannelPosition> copy = Map.copyOf(adoptions);
        return id -> Optional.ofNullable(copy.get(id));
    }
}
