package io.tablestorecdc.checkpoint.meta;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The owner lease of a tunnel (invariant 8), kept in one row and changed only by compare-and-set on
 * its epoch, so that of two racing consumers exactly one wins. A released lease stays as a row with
 * no owner, which keeps epochs increasing: a stale holder can never match a later epoch.
 */
final class Ownership {

    private static final int MAX_ATTEMPTS = 8;

    private final MetaTableClient client;
    private final Clock clock;
    private final MetaRowFormat format;

    Ownership(MetaTableClient client, Clock clock, MetaRowFormat format) {
        this.client = client;
        this.clock = clock;
        this.format = format;
    }

    OwnerLease acquire(String tunnelId, String consumerId, long leaseMillis) {
        requireLease(consumerId, leaseMillis);
        String holder = UUID.randomUUID().toString();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Optional<OwnerLease> stored = stored(tunnelId);
            long now = clock.millis();
            if (stored.isEmpty()) {
                OwnerLease first =
                        new OwnerLease(tunnelId, consumerId, holder, 1, now + leaseMillis);
                if (client.putIfAbsent(MetaRowFormat.ownerRow(first)) == PutOutcome.WRITTEN
                        || isCurrent(first)) {
                    return first;
                }
                continue;
            }
            OwnerLease held = stored.get();
            if (isHeldByOther(held, consumerId, now)) {
                throw ownedByOther(held, now);
            }
            OwnerLease next =
                    new OwnerLease(
                            tunnelId, consumerId, holder, held.epoch() + 1, now + leaseMillis);
            if (compareAndSet(held.epoch(), next)) {
                return next;
            }
        }
        throw new OwnershipConflictException(
                "The owner of tunnel "
                        + tunnelId
                        + " in meta table "
                        + client.tableName()
                        + " kept changing while consumer '"
                        + consumerId
                        + "' tried to acquire it: several consumers are starting on the same"
                        + " tunnel. Run only one Spark query or Flink job per tunnel.");
    }

    OwnerLease renew(OwnerLease lease, long leaseMillis) {
        requireLease(lease.consumerId(), leaseMillis);
        OwnerLease next =
                new OwnerLease(
                        lease.tunnelId(),
                        lease.consumerId(),
                        lease.holder(),
                        lease.epoch() + 1,
                        clock.millis() + leaseMillis);
        if (compareAndSet(lease.epoch(), next)) {
            return next;
        }
        throw lost(lease);
    }

    boolean release(OwnerLease lease) {
        OwnerLease released =
                new OwnerLease(
                        lease.tunnelId(),
                        MetaRowFormat.NO_OWNER,
                        lease.holder(),
                        lease.epoch() + 1,
                        0L);
        return compareAndSet(lease.epoch(), released);
    }

    Optional<OwnerLease> current(String tunnelId) {
        return stored(tunnelId).filter(lease -> !isReleased(lease));
    }

    /**
     * The owner rows of {@code tunnelIds} (distinct), as {@link #current(String)} reads each, in
     * one request per {@link MetaTableClient#MAX_BATCH_GET_ROWS} tunnels.
     */
    Map<String, Optional<OwnerLease>> current(List<String> tunnelIds) {
        Map<String, Optional<OwnerLease>> owners = new LinkedHashMap<>();
        for (int from = 0; from < tunnelIds.size(); from += MetaTableClient.MAX_BATCH_GET_ROWS) {
            List<String> slice =
                    tunnelIds.subList(
                            from,
                            Math.min(tunnelIds.size(), from + MetaTableClient.MAX_BATCH_GET_ROWS));
            List<Optional<MetaRow>> rows =
                    client.getAll(slice.stream().map(MetaRowFormat::ownerKey).toList());
            for (int i = 0; i < slice.size(); i++) {
                owners.put(
                        slice.get(i),
                        rows.get(i).map(format::owner).filter(lease -> !isReleased(lease)));
            }
        }
        return owners;
    }

    /** The owner row as stored, a released lease included. */
    private Optional<OwnerLease> stored(String tunnelId) {
        return client.get(MetaRowFormat.ownerKey(tunnelId)).map(format::owner);
    }

    private static boolean isReleased(OwnerLease lease) {
        return lease.consumerId().equals(MetaRowFormat.NO_OWNER);
    }

    /** A failed condition may be our own earlier write whose response was lost and retried. */
    private boolean compareAndSet(long expectedEpoch, OwnerLease next) {
        MetaRow row = MetaRowFormat.ownerRow(next);
        return client.replaceIf(
                        row, MetaRowFormat.COL_LEASE_EPOCH, MetaValue.integer(expectedEpoch))
                || isCurrent(next);
    }

    private boolean isCurrent(OwnerLease lease) {
        return stored(lease.tunnelId()).filter(lease::equals).isPresent();
    }

    private static boolean isHeldByOther(OwnerLease held, String consumerId, long now) {
        return !isReleased(held)
                && !held.consumerId().equals(consumerId)
                && held.expiresAtMillis() > now;
    }

    private static void requireLease(String consumerId, long leaseMillis) {
        if (consumerId.isEmpty()) {
            throw new IllegalArgumentException(
                    "The consumer id of a tunnel owner must not be empty");
        }
        if (leaseMillis <= 0) {
            throw new IllegalArgumentException("leaseMillis must be > 0 but was " + leaseMillis);
        }
    }

    private OwnershipConflictException ownedByOther(OwnerLease held, long now) {
        long seconds = Math.max(1, (held.expiresAtMillis() - now + 999) / 1000);
        return new OwnershipConflictException(
                "Tunnel "
                        + held.tunnelId()
                        + " is owned by consumer '"
                        + held.consumerId()
                        + "' (meta table "
                        + client.tableName()
                        + "), whose lease runs until "
                        + Instant.ofEpochMilli(held.expiresAtMillis())
                        + " ("
                        + seconds
                        + " s from now). Only one Spark query or Flink job may read a tunnel. Stop"
                        + " the other query/job, or give this one its own tunnel; if the other"
                        + " consumer has died, start this one again after its lease expires, or ",
                held.consumerId(),
                client.tableName());
    }

    private OwnershipLostException lost(OwnerLease lease) {
        String now =
                current(lease.tunnelId())
                        .map(o -> "consumer '" + o.consumerId() + "'")
                        .orElse("no consumer");
        return new OwnershipLostException(
                "Consumer '"
                        + lease.consumerId()
                        + "' no longer owns tunnel "
                        + lease.tunnelId()
                        + " (meta table "
                        + client.tableName()
                        + "): its lease was taken over and "
                        + now
                        + " holds it now. This consumer stops so it does not interleave with the"
                        + " owner; renew the lease more often than it expires, and run only one"
                        + " query/job per tunnel.");
    }
}
