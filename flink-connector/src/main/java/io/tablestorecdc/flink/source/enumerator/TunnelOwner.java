package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This job's owner lease on its tunnel (invariant 8), kept in the meta table: acquired before the
 * tunnel client connects, so that a second job (or a Spark query) on the same tunnel is refused
 * before its client could take channels from the first; renewed from the enumerator's periodic
 * callable; released on close so that the next owner can start at once.
 */
@Internal
final class TunnelOwner {

    static final Duration LEASE = Duration.ofMinutes(2);
    static final Duration RENEW_EVERY = Duration.ofSeconds(20);

    private static final Logger LOG = LoggerFactory.getLogger(TunnelOwner.class);

    private final MetaStore store;
    private final OwnerLease acquired;
    private volatile OwnerLease lease;
    private volatile long lastRenewalNanos;
    private volatile boolean lost;

    private TunnelOwner(MetaStore store, OwnerLease lease) {
        this.store = store;
        this.acquired = lease;
        this.lease = lease;
        this.lastRenewalNanos = System.nanoTime();
    }

    /**
     * Takes the tunnel over for {@code consumerId}.
     *
     * @throws io.tablestorecdc.checkpoint.meta.OwnershipConflictException when another consumer
     *     holds a live lease; its message names that consumer and what to do
     */
    static TunnelOwner acquire(MetaStore store, String tunnelId, String consumerId) {
        return new TunnelOwner(
                store, store.acquireOwnership(tunnelId, consumerId, LEASE.toMillis()));
    }

    /**
     * A previous run of this job (before a failover or restore) left its tunnel client holding
     * channels until the server's heartbeat timeout; shut it down so the server hands them to the
     * new client at once.
     */
    void shutDownPredecessorClient(TunnelProxy proxy) {
        String tunnelId = acquired.tunnelId();
        Optional<String> previous = store.lastTunnelClient(tunnelId);
        previous.ifPresent(id -> shutDown(proxy, new TunnelClientId(tunnelId, id)));
    }

    private static void shutDown(TunnelProxy proxy, TunnelClientId client) {
        try {
            proxy.shutdown(client);
            LOG.info("Shut down tunnel client {} of a previous run", client.clientId());
        } catch (TunnelException e) {
            LOG.info(
                    "Previous tunnel client {} is already gone: {}",
                    client.clientId(),
                    e.getMessage());
        }
    }

    /** Records the client this owner connected, for the next owner to shut down. */
    void recordClient(TunnelClientId client) {
        store.recordTunnelClient(acquired.tunnelId(), client.clientId());
    }

    /**
     * Renews the lease when {@link #RENEW_EVERY} has passed. A transient meta table error is
     * retried on the next call (the lease outlives several attempts).
     *
     * @throws OwnershipLostException when another consumer has taken the tunnel over: this job must
     *     stop reading
     */
    void renewIfDue() {
        if (System.nanoTime() - lastRenewalNanos < RENEW_EVERY.toNanos()) {
            return;
        }
        try {
            lease = store.renewOwnership(lease, LEASE.toMillis());
            lastRenewalNanos = System.nanoTime();
        } catch (OwnershipLostException e) {
            lost = true;
            throw e;
        } catch (MetaTableException | TunnelException e) {
            LOG.warn(
                    "Could not renew the owner lease of tunnel {}; retrying: {}",
                    acquired.tunnelId(),
                    e.getMessage());
        }
    }

    /** Gives the tunnel up, unless it was lost (then it is another consumer's). */
    void release() {
        if (lost) {
            return;
        }
        try {
            store.releaseOwnership(lease);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not release the owner lease of tunnel {}; the next owner waits for it"
                            + " to expire (at most {} s): {}",
                    acquired.tunnelId(),
                    LEASE.toSeconds(),
                    e.getMessage());
        }
    }

    /** Forces the next {@link #renewIfDue()} to renew (tests). */
    void renewNextTime() {
        lastRenewalNanos = System.nanoTime() - RENEW_EVERY.toNanos();
    }
}
