package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.Engine;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.consumer.TunnelOpener;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.merge.ChannelListCache;
import io.tablestorecdc.checkpoint.merge.CheckpointMerger;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.ServerCheckpoints;
import io.tablestorecdc.checkpoint.merge.UnreadableChannel;
import io.tablestorecdc.checkpoint.meta.ForwardingMetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaRow;
import io.tablestorecdc.checkpoint.meta.MetaRowKey;
import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaValue;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.PutOutcome;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelSession;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's connection to Tablestore for one streaming query: the meta store, the owner lease
 * (invariant 8) and the one tunnel client, with heartbeats and lease renewals on a daemon thread.
 *
 * <p>Opened in that order — lease before tunnel client — so that a second query on the same tunnel
 * is refused before its client could take channels from the first. Every meta-table write of the
 * driver (plans, adoptions, purges) first checks that this query still holds the lease, so a query
 * whose lease was taken over stops at its next write instead of interleaving with the new owner.
 */
final class SourceConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SourceConnection.class);

    private static final Duration LISTING_TTL = Duration.ofSeconds(5);
    private static final String CLIENT_TAG = "tablestore-cdc-spark";
    private static final int REQUEST_THREADS = 8;
    private static final int META_THREADS = 4;

    private final TablestoreSourceOptions options;
    private final SdkMetaTableClient metaClient;
    private final MetaStore ownerStore;
    private final MetaStore metaStore;
    private final TunnelProxy proxy;
    private final TunnelDescription tunnel;

    /** How long a close waits for a request in flight before interrupting it. */
    private static final long STOP_MILLIS = 10_000;

    private final ScheduledExecutorService scheduler;
    private final ExecutorService requests;
    private final ExecutorService metaRequests;
    private final Map<String, ChannelPosition> adoptions = new HashMap<>();
    private final Set<String> skippedLogged = new TreeSet<>();
    private String consumerId = "";
    private OwnerLeaseKeeper owner;
    private CatchUpReporter catchUp;
    private volatile RuntimeException failure;
    private TunnelSession session;
    private ChannelListCache listing;

    private SourceConnection(
            TablestoreSourceOptions options,
            SdkMetaTableClient metaClient,
            TunnelProxy proxy,
            TunnelDescription tunnel) {
        this.options = options;
        this.metaClient = metaClient;
        this.ownerStore = new MetaStore(metaClient);
        this.metaRequests =
                Executors.newFixedThreadPool(
                        META_THREADS,
                        DaemonThreads.named("tablestore-cdc-meta-" + tunnel.tunnelName()));
        this.metaStore =
                new MetaStore(
                        new OwnerCheckedClient(metaClient),
                        java.time.Clock.systemUTC(),
                        options.settings().metaFullSnapshotEvery(),
                        Optional.of(metaRequests));
        this.proxy = proxy;
        this.tunnel = tunnel;
        this.requests =
                Executors.newFixedThreadPool(
                        REQUEST_THREADS,
                        DaemonThreads.named("tablestore-cdc-requests-" + tunnel.tunnelName()));
        this.scheduler =
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("tablestore-cdc-" + tunnel.tunnelName()));
    }

    /**
     * Connects: meta table (created if missing), tunnel (created if configured), owner lease for
     * {@code consumerId}, tunnel client with heartbeats.
     */
    static SourceConnection open(TablestoreSourceOptions options, String consumerId) {
        TablestoreEndpoint endpoint = options.tablestoreEndpoint();
        SdkMetaTableClient metaClient = SdkMetaTableClient.connect(endpoint, options.metaTable());
        TunnelProxy proxy = SdkTunnelProxy.create(endpoint);
        SourceConnection connection = null;
        try {
            new MetaStore(metaClient).ensureTable();
            connection = new SourceConnection(options, metaClient, proxy, describe(proxy, options));
            connection.start(consumerId);
            return connection;
        } catch (RuntimeException e) {
            if (connection != null) {
                connection.close();
            } else {
                proxy.close();
                metaClient.close();
            }
            throw e;
        }
    }

    private static TunnelDescription describe(TunnelProxy proxy, TablestoreSourceOptions o) {
        return new TunnelOpener(
                        Engine.SPARK,
                        o.tableName(),
                        o.tunnelName(),
                        o.tunnelCreate().tunnelType(),
                        o.tunnelStart())
                .open(proxy, Optional.empty());
    }

    private void start(String consumerId) {
        this.consumerId = consumerId;
        owner = OwnerLeaseKeeper.acquire(ownerStore, tunnel.tunnelId(), consumerId);
        adoptions.putAll(metaStore.adoptions(tunnel.tunnelId()));
        owner.shutDownPredecessorClient(proxy);
        session =
                TunnelSession.open(
                        proxy, tunnel.tunnelId(), TunnelSessionConfig.withDefaults(CLIENT_TAG));
        owner.recordClient(session.clientId());
        session.startHeartbeats(scheduler);
        long renewEvery = OwnerLeaseKeeper.RENEW_EVERY.toMillis();
        scheduler.scheduleWithFixedDelay(
                this::renewLease, renewEvery, renewEvery, TimeUnit.MILLISECONDS);
        catchUp = CatchUpReporter.of(owner);
        long reportEvery = CatchUpReporter.MIN_INTERVAL.toMillis();
        scheduler.scheduleWithFixedDelay(
                this::reportCatchUp, reportEvery, reportEvery, TimeUnit.MILLISECONDS);
        listing = new ChannelListCache(this::listChannels, LISTING_TTL);
        LOG.info(
                "tablestore-cdc source for tunnel {} ({}) of table {} started as client {}",
                tunnel.tunnelName(),
                tunnel.tunnelId(),
                options.tableName(),
                session.clientId().clientId());
    }

    private List<ServerChannel> listChannels() {
        return proxy.describeTunnel(options.tableName(), options.tunnelName()).channels();
    }

    /** The catch-up report planning probes feed (see {@link CatchUpReporter}). */
    CatchUpReporter catchUp() {
        return catchUp;
    }

    private void reportCatchUp() {
        try {
            catchUp.flushIfDue();
        } catch (RuntimeException e) {
            LOG.warn("Unexpected error writing the catch-up report of tunnel {}", tunnelId(), e);
        }
    }

    private void renewLease() {
        try {
            owner.renew();
        } catch (OwnershipLostException e) {
            failure = leaseLost(e.getMessage(), e);
            LOG.error("{}", failure.getMessage());
        } catch (RuntimeException e) {
            LOG.error("Unexpected error renewing the owner lease of tunnel {}", tunnelId(), e);
        }
    }

    /** Throws the error that stopped this connection (lost lease, expired tunnel), if any. */
    void checkHealthy() {
        RuntimeException stoppedBy = failure;
        if (stoppedBy != null) {
            throw stoppedBy;
        }
        session.checkHealthy();
    }

    /**
     * Throws unless this query still holds the owner lease it acquired: the owner row must still
     * name this acquisition (a renewal keeps it; a takeover, a newer run of this query, a release
     * or a hand edit changes it). One read, made before each meta-table write of the driver.
     */
    private void requireOwnership() {
        RuntimeException stoppedBy = failure;
        if (stoppedBy != null) {
            throw stoppedBy;
        }
        Optional<String> now = owner.heldElsewhere();
        if (now.isPresent()) {
            IllegalStateException lost =
                    leaseLost("The owner row changed: " + now.get() + ".", null);
            failure = lost;
            LOG.error("{}", lost.getMessage());
            throw lost;
        }
    }

    /** The tunnel and table as the user named them, what happened, and what to do. */
    private IllegalStateException leaseLost(String detail, Throwable cause) {
        return new IllegalStateException(
                "tablestore-cdc source on tunnel '"
                        + options.tunnelName()
                        + "' of table '"
                        + options.tableName()
                        + "' lost its owner lease in meta table '"
                        + options.metaTable()
                        + "' and stops without writing further batches, so that it does not"
                        + " interleave with the new owner. "
                        + detail
                        + " Only one query may read a tunnel: stop the other query or job (or give"
                        + " one of them its own tunnel), then restart this query on its checkpoint"
                        + " location; it resumes after its last committed batch.",
                cause);
    }

    /**
     * Merges the committed snapshot (empty for a first start) with the server listing. A first
     * start adopts channels at the server checkpoints (a new checkpoint location takes over where
     * the last consumer stopped); later merges restart a channel this consumer adopted before at
     * its first adoption position (invariant 5).
     */
    MergeResult merge(Optional<BatchSnapshot> committed) {
        AdoptionHistory history =
                committed.isPresent()
                        ? AdoptionHistory.of(adoptionsCopy())
                        : AdoptionHistory.none();
        CheckpointMerger merger =
                new CheckpointMerger(
                        tunnelId(),
                        tunnel.type(),
                        Optional.of(session.clientId().clientId()),
                        options.onVanishedChannel(),
                        options.onServerAhead());
        List<ServerChannel> channels = listing.channels();
        MergeResult result;
        try {
            result =
                    merger.merge(
                            committed, channels, serverCheckpoints(committed, channels), history);
        } catch (ServerAheadException e) {
            throw e.withContext(
                    Engine.SPARK,
                    "tunnel '" + options.tunnelName() + "' of table '" + options.tableName() + "'",
                    "checkpoint location "
                            + consumerId
                            + ", whose last committed batch starts at meta snapshot "
                            + committed.map(c -> c.token().toString()).orElse("(none)"));
        }
        result.warnings().forEach(LOG::warn);
        logSkippedOnce(result);
        recordAdoptions(result);
        return result;
    }

    /**
     * Under {@code on.server.ahead=skip}, each skipped channel is logged once per run and counted;
     * later merges see it again until a batch commits its tombstone.
     */
    private synchronized void logSkippedOnce(MergeResult result) {
        for (UnreadableChannel channel : result.skipped()) {
            if (skippedLogged.add(channel.channelId())) {
                LOG.warn(
                        "Skipping changes the tunnel server can no longer serve ({}=skip): {}",
                        ServerAheadPolicy.OPTION_KEY,
                        channel.describe());
            }
        }
    }

    /** Channels skipped under {@code on.server.ahead=skip} in this run. */
    synchronized int channelsSkippedOnServerAhead() {
        return skippedLogged.size();
    }

    /**
     * A first start adopts every channel at its server checkpoint: those are fetched at once (one
     * request per channel; one after another they took most of a first batch with many channels).
     * Later merges look up only the few channels they adopt.
     */
    private ServerCheckpoints serverCheckpoints(
            Optional<BatchSnapshot> committed, List<ServerChannel> channels) {
        if (committed.isPresent()) {
            return this::serverCheckpoint;
        }
        Map<String, CompletableFuture<Optional<ChannelPosition>>> fetching = new HashMap<>();
        for (ServerChannel channel : channels) {
            String id = channel.channelId();
            fetching.put(id, CompletableFuture.supplyAsync(() -> serverCheckpoint(id), requests));
        }
        return id -> fetching.containsKey(id) ? joined(fetching.get(id)) : serverCheckpoint(id);
    }

    /** The request's own failure (a TunnelException, say), not the future's wrapper. */
    static <T> T joined(CompletableFuture<T> request) {
        try {
            return request.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** Empty when the server has no checkpoint yet (a WAIT child may have none). */
    private Optional<ChannelPosition> serverCheckpoint(String channelId) {
        try {
            return Optional.of(session.serverCheckpoint(channelId).position());
        } catch (TunnelException e) {
            if (e.kind() == TunnelException.Kind.MALFORMED_RESPONSE
                    || e.kind() == TunnelException.Kind.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private synchronized Map<String, ChannelPosition> adoptionsCopy() {
        return new HashMap<>(adoptions);
    }

    private synchronized void recordAdoptions(MergeResult result) {
        List<ChannelCheckpoint> fresh = new ArrayList<>();
        for (String id : result.adopted()) {
            ChannelCheckpoint entry = result.entries().get(id);
            if (!adoptions.containsKey(id)) {
                fresh.add(entry);
                adoptions.put(id, entry.adoptedAt());
            }
        }
        if (!fresh.isEmpty()) {
            metaStore.recordAdoptions(tunnelId(), fresh);
        }
    }

    /** Channels the server marked finished are hidden from listings until confirmed. */
    void markFinished(Collection<String> channelIds) {
        channelIds.forEach(listing::markFinished);
    }

    String tunnelId() {
        return tunnel.tunnelId();
    }

    TunnelDescription tunnel() {
        return tunnel;
    }

    TunnelClientId clientId() {
        return session.clientId();
    }

    TunnelSession session() {
        return session;
    }

    TunnelProxy proxy() {
        return proxy;
    }

    MetaStore metaStore() {
        return metaStore;
    }

    /** Runs per-channel requests of the driver (planning probes, progress pushes) at once. */
    ExecutorService requests() {
        return requests;
    }

    /**
     * Releases the lease and the tunnel client so that the next consumer can start at once. The
     * threads end first (a heartbeat, renewal or report in flight lands, it is not interrupted);
     * every step runs even when one before failed.
     */
    @Override
    public void close() {
        CloseSequence.of("the connection to tunnel '" + tunnel.tunnelName() + "'")
                .thenStop("stop the heartbeat, lease and report thread", scheduler, STOP_MILLIS)
                .thenStop("stop the request threads", requests, STOP_MILLIS)
                .thenStop("stop the meta request threads", metaRequests, STOP_MILLIS)
                .then("shut down the tunnel client", this::closeSession)
                .then("release the owner lease", this::releaseLease)
                .then("close the tunnel client", proxy::close)
                .then("close the meta table client", metaClient::close)
                .finish();
    }

    private void closeSession() {
        if (session != null) {
            session.close();
        }
    }

    private void releaseLease() {
        if (owner != null && failure == null) {
            owner.release();
        }
    }

    /**
     * The meta table as this query writes it: each write first checks that this query still owns
     * the tunnel (invariant 8). Reads are not checked; they change nothing. The connection closes
     * the underlying client.
     */
    private final class OwnerCheckedClient extends ForwardingMetaTableClient {

        OwnerCheckedClient(MetaTableClient table) {
            super(table);
        }

        @Override
        public PutOutcome putIfAbsent(MetaRow row) {
            requireOwnership();
            return super.putIfAbsent(row);
        }

        @Override
        public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
            requireOwnership();
            return super.putAllIfAbsent(rows);
        }

        @Override
        public boolean replaceIf(MetaRow row, String column, MetaValue expected) {
            requireOwnership();
            return super.replaceIf(row, column, expected);
        }

        @Override
        public void deleteAll(List<MetaRowKey> keys) {
            requireOwnership();
            super.deleteAll(keys);
        }
    }
}
