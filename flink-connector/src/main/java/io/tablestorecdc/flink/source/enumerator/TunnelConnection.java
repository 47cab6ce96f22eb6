package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.Engine;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.consumer.TunnelOpener;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.merge.ServerAhead;
import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelSession;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.TunnelMetricGauges;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's connection to Tablestore, opened in the core's order (invariant 8): the tunnel found or
 * created ({@link TunnelOpener}), the meta table, the owner lease ({@link OwnerLeaseKeeper}), the
 * predecessor's client shut down, then this job's tunnel client. Its methods but {@link #open} and
 * {@link #close} run on the enumerator's worker thread: discovery rounds (lease renewal,
 * heartbeats, the listing) and pushes to the server. Heartbeat bookkeeping is thread-safe.
 */
@Internal
final class TunnelConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TunnelConnection.class);

    /** Extra heartbeats (after a finish, or for a newly opened channel) at most this often. */
    static final Duration MIN_EXTRA_HEARTBEAT_GAP = Duration.ofMillis(500);

    private final TablestoreCdcSourceConfig config;
    private final TunnelProxy proxy;
    private final TunnelDescription tunnel;
    private final MetaTableClient metaClient;
    private final MetaSnapshotWriter meta;
    private final MetaStore store;
    private final OwnerLeaseKeeper owner;
    private final CatchUpReporter catchUp;
    private final TunnelSession session;
    private final ServerPushLedger pushes;
    private final AdoptionHistory adoptedAtOpen;

    private boolean closed;
    private volatile long lastHeartbeatNanos;
    private volatile boolean heartbeatSoon;
    private volatile int finishRoundsHeartbeated;

    private TunnelConnection(
            TablestoreCdcSourceConfig config,
            TunnelProxy proxy,
            TunnelDescription tunnel,
            MetaTableClient metaClient,
            OwnerLeaseKeeper owner,
            ServerPushLedger pushes,
            boolean restored) {
        this.config = config;
        this.proxy = proxy;
        this.tunnel = tunnel;
        this.metaClient = metaClient;
        this.catchUp = CatchUpReporter.of(owner);
        this.store =
                new MetaStore(
                        metaClient,
                        java.time.Clock.systemUTC(),
                        config.settings().metaFullSnapshotEvery());
        this.meta = new MetaSnapshotWriter(store);
        this.owner = owner;
        this.pushes = pushes;
        owner.shutDownPredecessorClient(proxy);
        this.session =
                TunnelSession.open(
                        proxy,
                        tunnel.tunnelId(),
                        config.sessionConfig("flink:" + config.tunnelName()));
        owner.recordClient(session.clientId());
        // The release on close sends the conditional write a renewal sends: one renewal now has
        // loaded its classes, which a close after the job's classloader closed cannot load.
        owner.renew();
        // Only a restored job goes back to earlier adoptions: a new one takes over where the
        // server stands (from a consumer of another engine, say), as Spark's first start does.
        this.adoptedAtOpen =
                restored
                        ? AdoptionHistory.of(store.adoptions(tunnel.tunnelId()))
                        : AdoptionHistory.none();
        this.lastHeartbeatNanos = System.nanoTime();
    }

    /**
     * Opens the connection.
     *
     * @param savedTunnelId the tunnel id of the restored state, if any (a re-created tunnel is
     *     refused)
     * @throws io.tablestorecdc.checkpoint.meta.OwnershipConflictException when another consumer
     *     reads the tunnel
     */
    static TunnelConnection open(
            TablestoreCdcSourceConfig config,
            TunnelProxyFactory proxyFactory,
            MetaTableClientFactory metaFactory,
            MetricGroup metrics,
            String consumerId,
            Optional<String> savedTunnelId,
            ServerPushLedger pushes) {
        TunnelProxy proxy =
                TunnelMetricGauges.registerOn(metrics).track(proxyFactory.create(config));
        MetaTableClient metaClient = null;
        try {
            TunnelDescription tunnel =
                    new TunnelOpener(
                                    Engine.FLINK,
                                    config.tableName(),
                                    config.tunnelName(),
                                    config.tunnelCreation().tunnelType(),
                                    config.startPosition().toTunnelStart())
                            .open(proxy, savedTunnelId);
            metaClient = metaFactory.create(config);
            MetaStore store = new MetaStore(metaClient);
            store.ensureTable();
            OwnerLeaseKeeper owner = OwnerLeaseKeeper.acquire(store, tunnel.tunnelId(), consumerId);
            return new TunnelConnection(
                    config, proxy, tunnel, metaClient, owner, pushes, savedTunnelId.isPresent());
        } catch (RuntimeException e) {
            if (metaClient != null) {
                metaClient.close();
            }
            proxy.close();
            throw e;
        }
    }

    TunnelDescription tunnel() {
        return tunnel;
    }

    TunnelClientId clientId() {
        return session.clientId();
    }

    /** The catch-up report the readers' committed positions feed; written by discovery rounds. */
    CatchUpReporter catchUp() {
        return catchUp;
    }

    MetaSnapshotWriter meta() {
        return meta;
    }

    /**
     * Where consumers of this tunnel (this job's earlier runs among them) first adopted channels,
     * as read when a restored job connected; none for a job started without state.
     */
    AdoptionHistory adoptionHistory() {
        return adoptedAtOpen;
    }

    String metaTableName() {
        return metaClient.tableName();
    }

    /**
     * One discovery round: renews the lease when due, heartbeats when due, then lists the channels
     * and offers each channel the server opened to this client and the job does not know yet.
     */
    synchronized ChannelDiscovery discover(Set<String> known) {
        checkOpen();
        owner.renewIfDue();
        catchUp.flushIfDue();
        heartbeatIfDue();
        session.checkHealthy();
        int covered = finishRoundsHeartbeated;
        TunnelDescription listed = proxy.describeTunnel(config.tableName(), config.tunnelName());
        Set<String> open = session.openChannelIds();
        Map<String, ChannelSplit> candidates = new HashMap<>();
        for (ServerChannel channel : listed.channels()) {
            String id = channel.channelId();
            if (open.contains(id) && !known.contains(id)) {
                candidates.put(id, new ChannelSplit(id, channel.type(), startOf(id)));
            } else if (channel.isOpen() && !open.contains(id) && !known.contains(id)) {
                // Opened on the server (e.g. a child) but not yet assigned to this client: the
                // next heartbeat picks it up, without waiting a whole heartbeat interval.
                heartbeatSoon = true;
            }
        }
        return new ChannelDiscovery(listed.channels(), open, candidates, covered);
    }

    /**
     * Where a channel new to the job's state starts: the core's rule (invariant 5). A restored job
     * reads a channel it adopted before again from there, whatever the server's checkpoint says.
     */
    private ChannelPosition startOf(String channelId) {
        ChannelPosition server = session.serverCheckpoint(channelId).position();
        ChannelPosition start = adoptedAtOpen.startOf(channelId, server);
        if (!start.equals(server)) {
            LOG.warn("{}", new ServerAhead(channelId, start, "checkpoint " + server).message());
        }
        return start;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(
                    "The connection to tunnel '" + config.tunnelName() + "' is closed");
        }
    }

    private void heartbeatIfDue() {
        long now = System.nanoTime();
        long since = now - lastHeartbeatNanos;
        boolean early = heartbeatSoon && since >= MIN_EXTRA_HEARTBEAT_GAP.toNanos();
        if (early || since >= config.heartbeatInterval().toNanos()) {
            heartbeatSoon = false;
            lastHeartbeatNanos = now;
            int rounds = pushes.finishRounds();
            session.heartbeatOnce();
            finishRoundsHeartbeated = rounds;
        }
    }

    /** Pushes {@code plan} and records it acknowledged; after finishes, heartbeats soon. */
    synchronized void push(ServerCommitPlan plan) {
        if (closed) {
            return; // a closing job pushes nothing more; its successor starts from the state
        }
        plan.positions().forEach(session::checkpoint);
        plan.finishes().forEach(id -> session.checkpoint(id, ChannelPosition.finished()));
        pushes.acknowledged(plan);
        if (!plan.finishes().isEmpty()) {
            heartbeatSoon = true;
        }
    }

    /** Makes the next discovery round heartbeat first. */
    void requestHeartbeat() {
        heartbeatSoon = true;
        lastHeartbeatNanos = System.nanoTime() - MIN_EXTRA_HEARTBEAT_GAP.toNanos();
    }

    /** Makes the next discovery round renew the owner lease. */
    void requestLeaseRenewal() {
        owner.renewNextTime();
    }

    /**
     * Closes the tunnel client first (no push of this job reaches the server after it), then
     * releases the lease, so that the next owner may start at once; then stops the SDK clients' I/O
     * threads. Every step runs even when one before failed; the first failure is rethrown. A
     * discovery round or push in flight ends first; none starts after. A second call does nothing.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        CloseSequence.of("the connection to tunnel '" + config.tunnelName() + "'")
                .then("shut down the tunnel client", session::close)
                .then("release the owner lease", owner::release)
                .then("close the tunnel client", proxy::close)
                .then("close the meta table client", metaClient::close)
                .finish();
    }
}
