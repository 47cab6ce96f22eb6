package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;

/**
 * A consumer's lease on a tunnel, as written to the owner row.
 *
 * @param tunnelId the tunnel owned
 * @param consumerId the owning consumer (one Spark query or one Flink job)
 * @param holder a random id of this acquisition, kept by renewals: it tells two runs of the same
 *     consumer id apart (a restarted query and the stale one it replaced)
 * @param epoch incremented by every acquire and renewal; writes to the owner row are conditional on
 *     it, so that two consumers can never both believe they hold the lease
 * @param expiresAtMillis wall-clock time (epoch millis) after which another consumer may take over
 */
@Internal
public record OwnerLease(
        String tunnelId, String consumerId, String holder, long epoch, long expiresAtMillis) {

    public OwnerLease {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(consumerId, "consumerId");
        Objects.requireNonNull(holder, "holder");
    }
}
