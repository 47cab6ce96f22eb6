package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * The job's consumer of its tunnel: the core's {@link TunnelConsumer} (open and close order,
 * fencing, channel start, adoptions, meta snapshots, pushes, renewals and heartbeats), scheduled by
 * the enumerator. What is Flink's own is the discovery round, which turns the server's listing into
 * splits. Its methods but {@link #open} and {@link #close} run on the enumerator's worker thread.
 */
@Internal
final class TunnelConnection implements AutoCloseable {

    private final TablestoreCdcSourceConfig config;
    private final TunnelConsumer consumer;
    private final AdoptionHistory adoptedAtOpen;
    private boolean closed;

    private TunnelConnection(
            TablestoreCdcSourceConfig config, TunnelConsumer consumer, boolean restored) {
        this.config = config;
        this.consumer = consumer;
        // Only a restored job goes back to earlier adoptions: a new one takes over where the
        // server stands (from a consumer of another engine, say), as Spark's first start does.
        this.adoptedAtOpen = restored ? consumer.adoptionHistory() : AdoptionHistory.none();
    }

    /**
     * Opens the connection with {@code proxy} and {@code metaClient}, which it closes (also when it
     * fails to open).
     *
     * @param savedTunnelId the tunnel id of the restored state, if any (a re-created tunnel is
     *     refused)
     * @param restoredHolder the lease acquisition the restored state was taken under, if any (a
     *     restart of a job that lost it is refused)
     * @throws io.tablestorecdc.checkpoint.meta.OwnershipConflictException when another consumer
     *     reads the tunnel
     */
    static TunnelConnection open(
            TablestoreCdcSourceConfig config,
            TunnelProxy proxy,
            MetaTableClient metaClient,
            String consumerId,
            Optional<String> savedTunnelId,
            Optional<String> restoredHolder,
            ServerPushLedger pushes) {
        TunnelConsumer.Setup setup =
                TunnelConsumer.Setup.of(
                                Engine.FLINK,
                                config.settings(),
                                consumerId,
                                config.sessionConfig("flink:" + config.tunnelName()))
                        .restoredUnder(restoredHolder);
        TunnelConsumer consumer =
                TunnelConsumer.open(
                        setup,
                        proxy,
                        metaClient,
                        savedTunnelId,
                        pushes,
                        Optional.empty(),
                        Optional.empty());
        return new TunnelConnection(config, consumer, savedTunnelId.isPresent());
    }

    TunnelConsumer consumer() {
        return consumer;
    }

    TunnelDescription tunnel() {
        return consumer.tunnel();
    }

    /**
     * Where consumers of this tunnel (this job's earlier runs among them) first adopted channels,
     * as read when a restored job connected; none for a job started without state.
     */
    AdoptionHistory adoptionHistory() {
        return adoptedAtOpen;
    }

    /**
     * One discovery round (null once closed): the consumer's periodic work (lease, catch-up report,
     * heartbeat), then the listing, offering each channel the server opened to this client that the
     * job does not know yet, at the core's start (invariant 5).
     */
    synchronized ChannelDiscovery discover(Set<String> known) {
        if (closed) {
            return null; // a periodic round after the table's enumerator closed
        }
        consumer.tick();
        consumer.checkHealthy();
        int covered = consumer.finishRoundsHeartbeated();
        TunnelDescription listed =
                consumer.proxy().describeTunnel(config.tableName(), config.tunnelName());
        Set<String> open = consumer.session().openChannelIds();
        Map<String, ChannelSplit> candidates = new HashMap<>();
        for (ServerChannel channel : listed.channels()) {
            String id = channel.channelId();
            if (open.contains(id) && !known.contains(id)) {
                Optional<ChannelPosition> start = consumer.startOf(id, adoptedAtOpen);
                start.ifPresent(p -> candidates.put(id, new ChannelSplit(id, channel.type(), p)));
            } else if (channel.isOpen() && !open.contains(id) && !known.contains(id)) {
                // Opened on the server (e.g. a child) but not yet assigned to this client: the
                // next heartbeat picks it up, without waiting a whole heartbeat interval.
                consumer.heartbeatSoon();
            }
        }
        return new ChannelDiscovery(listed.channels(), open, candidates, covered);
    }

    /**
     * Closes the consumer in the core's order. A discovery round or push in flight ends first; none
     * starts after (a round then returns null). A second call does nothing.
     */
    @Override
    public synchronized void close() {
        closed = true;
        consumer.close();
    }
}
