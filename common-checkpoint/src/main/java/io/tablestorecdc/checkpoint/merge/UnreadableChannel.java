package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Objects;
import java.util.Optional;

/**
 * A channel whose changes the consumer's state has not delivered but the tunnel server can no
 * longer serve: it lists the channel {@code TERMINATED} (finished by a later run of this consumer),
 * and a terminated channel is never handed out again.
 *
 * @param channelId the channel
 * @param from where the engine's state would resume it: its committed position, or where this
 *     consumer first adopted it; empty when the state never saw it
 * @param inState whether the engine's state holds the channel (unfinished) or only the meta table's
 *     adoption records know it
 */
@Internal
public record UnreadableChannel(String channelId, Optional<ChannelPosition> from, boolean inState) {

    public UnreadableChannel {
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(from, "from");
    }

    /**
     * What would be skipped, e.g. "p-3: every change after position t+2 (the server finished it)".
     */
    public String describe() {
        String range =
                from.map(p -> "every change after position " + p).orElse("every change in it");
        return channelId
                + ": "
                + range
                + (inState
                        ? " (the state holds it unfinished; the server has finished it)"
                        : " (adopted after the state was taken and finished since)");
    }
}
