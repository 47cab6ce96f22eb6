package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a consumer last reported of its channels: which ones it had read to their end, and at which
 * position. Kafka's lag is the end offset minus the committed offset; a tunnel reports no end, but
 * the consumer sees it when a read returns nothing more. A channel is caught up when the consumer's
 * newest committed position equals the position at which it found the channel drained: everything
 * the server held when the consumer looked is then committed. The report is kept in one meta-table
 * row and rewritten by the lease holder (see {@link
 * io.tablestorecdc.checkpoint.consumer.CatchUpReporter}).
 *
 * @param holder the owner-lease acquisition that wrote it ({@link OwnerLease#holder()}): a report
 *     of an earlier run of the consumer is not about the current one
 * @param reportedAtMillis when it was written (epoch millis, the writer's clock)
 * @param caughtUp by channel id, the position at which the consumer last found the channel read to
 *     its end and has not seen it behind since
 */
@Internal
public record ConsumerProgress(
        String holder, long reportedAtMillis, Map<String, ChannelPosition> caughtUp) {

    public ConsumerProgress {
        Objects.requireNonNull(holder, "holder");
        caughtUp = Collections.unmodifiableMap(new TreeMap<>(caughtUp));
    }

    public Instant reportedAt() {
        return Instant.ofEpochMilli(reportedAtMillis);
    }

    /** The position at which {@code channelId} was found drained, if the report says it was. */
    public Optional<ChannelPosition> caughtUpAt(String channelId) {
        return Optional.ofNullable(caughtUp.get(channelId));
    }

    /**
     * Whether the channel's committed position {@code committed} is where the consumer found it
     * drained: nothing the server held at the report was left uncommitted.
     */
    public boolean isCaughtUp(String channelId, ChannelPosition committed) {
        return committed.equals(caughtUp.get(channelId));
    }

    /**
     * Whether this report speaks for {@code lease}'s holder, is current (written within {@code
     * freshness} before {@code now}), and so may be trusted for the channels it lists.
     */
    public boolean isCurrentFor(OwnerLease lease, Instant now, java.time.Duration freshness) {
        return lease.holder().equals(holder) && reportedAt().isAfter(now.minus(freshness));
    }
}
