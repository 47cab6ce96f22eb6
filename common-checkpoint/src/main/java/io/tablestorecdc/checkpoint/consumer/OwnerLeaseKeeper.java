package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's owner lease on its tunnel (invariant 8), kept in the meta table, for both engines.
 *
 * <p>The order of a start is fixed: the lease is acquired before the consumer's tunnel client
 * connects, so that a second consumer on the same tunnel (another query or job, in either engine)
 * is refused before its client could take channels from the first; then the tunnel client a
 * previous run left behind is shut down, so that the server hands its channels to the new client at
 * once instead of after its heartbeat timeout; then the new client is recorded for the next run.
 * The lease is renewed every {@link #RENEW_EVERY} (a transient meta-table error is retried on the
 * next renewal: the lease outlives several) and released on close, so that the next owner may start
 * at once. Thread-safe.
 */
@Internal
public final class OwnerLeaseKeeper {

    /** How long a lease lasts without renewal: how long a crashed consumer blocks its successor. */
    public static final Duration LEASE = Duration.ofMinutes(2);

    /** How often the lease is renewed. */
    public static final Duration RENEW_EVERY = Duration.ofSeconds(20);

    /**
     * When {@code lease} was last acquired or renewed: both set its expiry {@link #LEASE} ahead of
     * that moment.
     */
    public static Instant lastRenewal(OwnerLease lease) {
        return Instant.ofEpochMilli(lease.expiresAtMillis()).minus(LEASE);
    }

    /**
     * True while the lease's holder keeps renewing it: its last renewal is less than two {@link
     * #RENEW_EVERY} periods before {@code now} (one late renewal is allowed for, as a busy or
     * paused process may renew a little late). A holder that has stopped renewing is dead or stuck,
     * even though its lease runs until it expires.
     */
    public static boolean isRenewing(OwnerLease lease, Instant now) {
        return lastRenewal(lease).isAfter(now.minus(RENEW_EVERY.multipliedBy(2)));
    }

    private static final Logger LOG = LoggerFactory.getLogger(OwnerLeaseKeeper.class);

    private final TunnelMeta meta;
    private final LongSupplier nanoClock;
    private final OwnerLease acquired;
    private volatile OwnerLease lease;
    private volatile long lastRenewalNanos;
    private volatile boolean lost;

    private OwnerLeaseKeeper(TunnelMeta meta, OwnerLease lease, LongSupplier nanoClock) {
        this.meta = meta;
        this.acquired = lease;
        this.lease = lease;
        this.nanoClock = nanoClock;
        this.lastRenewalNanos = nanoClock.getAsLong();
    }

    /**
     * Takes the tunnel of {@code meta} over for {@code consumerId}.
     *
     * @param meta the tunnel's meta rows, without owner checks on their writes (the lease row is
     *     written here)
     * @throws io.tablestorecdc.checkpoint.meta.OwnershipConflictException when another consumer
     *     holds a live lease; its message names that consumer and what to do
     */
    public static OwnerLeaseKeeper acquire(TunnelMeta meta, String consumerId) {
        return acquire(meta, consumerId, System::nanoTime);
    }

    static OwnerLeaseKeeper acquire(TunnelMeta meta, String consumerId, LongSupplier nanoClock) {
        OwnerLease lease = meta.acquireOwnership(consumerId, LEASE.toMillis());
        return new OwnerLeaseKeeper(meta, lease, nanoClock);
    }

    public String tunnelId() {
        return acquired.tunnelId();
    }

    /** The id of this acquisition, kept by renewals ({@link OwnerLease#holder()}). */
    public String holder() {
        return acquired.holder();
    }

    /** The tunnel's meta rows, the lease among them. */
    TunnelMeta meta() {
        return meta;
    }

    /**
     * Shuts down the tunnel client a previous run of a consumer of this tunnel recorded (it holds
     * channels until the server's heartbeat timeout otherwise). A client that is already gone is
     * fine.
     */
    public void shutDownPredecessorClient(TunnelProxy proxy) {
        Optional<String> previous = meta.lastTunnelClient();
        previous.ifPresent(id -> shutDown(proxy, new TunnelClientId(tunnelId(), id)));
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
    public void recordClient(TunnelClientId client) {
        meta.recordTunnelClient(client.clientId());
    }

    /**
     * Renews the lease when {@link #RENEW_EVERY} has passed since the last renewal; for consumers
     * that poll (a periodic callable) rather than schedule.
     *
     * @throws OwnershipLostException when another consumer has taken the tunnel over: this consumer
     *     must stop reading
     */
    public void renewIfDue() {
        if (nanoClock.getAsLong() - lastRenewalNanos >= RENEW_EVERY.toNanos()) {
            renew();
        }
    }

    /**
     * Renews the lease now. A transient meta-table or network error is logged and retried at the
     * next renewal.
     *
     * @throws OwnershipLostException when another consumer has taken the tunnel over
     */
    public void renew() {
        try {
            lease = meta.renewOwnership(lease, LEASE.toMillis());
            lastRenewalNanos = nanoClock.getAsLong();
        } catch (OwnershipLostException e) {
            lost = true;
            throw e;
        } catch (MetaTableException | TunnelException e) {
            LOG.warn(
                    "Could not renew the owner lease of tunnel {}; retrying: {}",
                    tunnelId(),
                    e.getMessage());
        }
    }

    /**
     * Reads the owner row once: empty while it still names this acquisition (renewals keep it),
     * otherwise what it says now ("consumer 'x' holds it now" or "no consumer holds it now"). A
     * takeover, a newer run of the same consumer, a release or a hand edit all change it.
     */
    public Optional<String> heldElsewhere() {
        return heldElsewhere(meta.owner());
    }

    /**
     * As {@link #heldElsewhere()}, for the owner row {@code owner} read already (with other
     * tunnels' rows, {@link io.tablestorecdc.checkpoint.meta.MetaTable#owners}).
     */
    public Optional<String> heldElsewhere(Optional<OwnerLease> owner) {
        OwnerLease mine = lease;
        boolean held =
                owner.isPresent()
                        && owner.get().holder().equals(mine.holder())
                        && owner.get().consumerId().equals(mine.consumerId());
        if (held) {
            return Optional.empty();
        }
        lost = true;
        return Optional.of(owner.map(o -> holderNow(o, mine)).orElse("no consumer holds it now"));
    }

    private static String holderNow(OwnerLease now, OwnerLease mine) {
        if (now.consumerId().equals(mine.consumerId())) {
            return "another run of consumer '"
                    + now.consumerId()
                    + "' holds it now (a query or job started from the same checkpoint)";
        }
        return "consumer '" + now.consumerId() + "' holds it now";
    }

    /** Marks the lease lost (it is another consumer's now): {@link #release()} leaves it alone. */
    public void markLost() {
        lost = true;
    }

    /**
     * Gives the tunnel up, unless it was lost (then it is another consumer's).
     *
     * @return false when the lease was lost, before or as found now (the owner row had changed);
     *     true when it was released, or could not be released for a meta-table error
     */
    public boolean release() {
        if (lost) {
            return false;
        }
        try {
            if (!meta.releaseOwnership(lease)) {
                lost = true;
                LOG.warn(
                        "The owner lease of tunnel {} had been taken over when this consumer"
                                + " released it; the owner row was left to the new owner",
                        tunnelId());
                return false;
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not release the owner lease of tunnel {}; the next owner waits for it"
                            + " to expire (at most {} s): {}",
                    tunnelId(),
                    LEASE.toSeconds(),
                    e.getMessage());
        }
        return true;
    }

    /** Forces the next {@link #renewIfDue()} to renew (tests). */
    public void renewNextTime() {
        lastRenewalNanos = nanoClock.getAsLong() - RENEW_EVERY.toNanos();
    }
}
