package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One tunnel, read once from the tunnel server and the meta table: what {@code describe} and {@code
 * lag} print.
 *
 * @param tunnel the server's description
 * @param owner the owner lease, if a consumer holds one
 * @param snapshots the batch log, oldest first
 * @param newest the newest complete snapshot
 * @param channels one row per channel the server lists, by channel id
 * @param now when it was read
 */
record TunnelReport(
        TunnelDescription tunnel,
        Optional<OwnerLease> owner,
        List<LoggedBatch> snapshots,
        Optional<BatchSnapshot> newest,
        List<ChannelRow> channels,
        Instant now) {

    static TunnelReport read(Service service, String table, String tunnelName, Instant now) {
        TunnelDescription tunnel = service.tunnels().describeTunnel(table, tunnelName);
        TunnelMeta meta = service.meta().tunnel(tunnel.tunnelId());
        Optional<OwnerLease> owner = meta.owner();
        List<LoggedBatch> log = meta.batchLog();
        Optional<BatchSnapshot> newest = log.isEmpty() ? Optional.empty() : meta.newestSnapshot();
        Optional<ConsumerProgress> progress = currentProgress(meta, owner, now);
        List<ChannelRow> rows = new ArrayList<>();
        List<ServerChannel> listed = new ArrayList<>(tunnel.channels());
        listed.sort(Comparator.comparing(ServerChannel::channelId));
        for (ServerChannel c : listed) {
            rows.add(
                    ChannelRow.of(c, newest.flatMap(s -> s.channel(c.channelId())), progress, now));
        }
        return new TunnelReport(tunnel, owner, log, newest, List.copyOf(rows), now);
    }

    /**
     * The catch-up report, when it speaks for the consumer that holds the lease and still renews
     * it, and is recent: a report of a dead or earlier consumer says nothing about now.
     */
    private static Optional<ConsumerProgress> currentProgress(
            TunnelMeta meta, Optional<OwnerLease> owner, Instant now) {
        if (owner.isEmpty() || !OwnerLeaseKeeper.isRenewing(owner.get(), now)) {
            return Optional.empty();
        }
        return meta.progress()
                .filter(p -> p.isCurrentFor(owner.get(), now, CatchUpReporter.FRESHNESS));
    }

    /** The greatest lag of a channel; empty when no channel's lag is known. */
    Optional<Duration> maxLag() {
        return channels.stream().flatMap(c -> c.lag().stream()).max(Comparator.naturalOrder());
    }

    /** The lease's last renewal, if there is a lease. */
    Optional<Instant> lastRenewal() {
        return owner.map(OwnerLeaseKeeper::lastRenewal);
    }

    /** The newest logged batch, by write time then sequence. */
    Optional<LoggedBatch> newestLogged() {
        return snapshots.stream()
                .max(
                        Comparator.comparingLong(LoggedBatch::createdAtMillis)
                                .thenComparingLong(LoggedBatch::sequence));
    }

    /** The oldest logged batch, by write time then sequence. */
    Optional<LoggedBatch> oldestLogged() {
        return snapshots.stream()
                .min(
                        Comparator.comparingLong(LoggedBatch::createdAtMillis)
                                .thenComparingLong(LoggedBatch::sequence));
    }
}
