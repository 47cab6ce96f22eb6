package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.merge.ServerAhead;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.meta.ForwardingMetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaRow;
import io.tablestorecdc.checkpoint.meta.MetaRowKey;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.MetaValue;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.OwnershipConflictException;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.PreparedSnapshot;
import io.tablestorecdc.checkpoint.meta.PurgeResult;
import io.tablestorecdc.checkpoint.meta.PutOutcome;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelSession;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of one tunnel, the same for both engines: it opens and closes in one order, fences
 * every write by the owner lease (invariant 8), decides where a channel new to the consumer starts
 * (invariant 5), records adoptions once, writes and purges meta snapshots, pushes committed
 * positions to the server (invariant 3) and keeps the lease, the catch-up report and the heartbeats
 * going ({@link #tick()}). An engine decides only when each of these runs: Spark's stream thread
 * and Flink's enumerator schedule it.
 *
 * <p><b>Open</b>: the tunnel found or created and checked ({@link TunnelOpener}), the meta table,
 * the owner lease, the adoptions recorded so far, the predecessor's tunnel client shut down, this
 * consumer's tunnel client, its id recorded, one renewal. <b>Close</b>: the tunnel client shut down
 * (no push of this consumer reaches the server after it), the lease released (the next owner may
 * start at once), the SDK clients closed; every step runs even when one before failed.
 *
 * <p><b>Fencing.</b> Three fences stop a consumer whose lease was taken over, also one whose
 * process was frozen longer than the lease and then ran again:
 *
 * <ol>
 *   <li>Every meta-table write ({@link #meta()}: snapshots, fills, adoptions, purges, the catch-up
 *       report) and every server push reads the owner row first and is refused, with {@link
 *       OwnershipLostException}, unless the row still names this consumer's acquisition. A takeover
 *       always changes the row (a compare-and-set on its epoch), so a thawed consumer fails at its
 *       first write, before it writes.
 *   <li>The new owner shuts down the tunnel client its predecessor recorded before it connects its
 *       own; the tunnel server then refuses that client's reads, checkpoints and heartbeats. A
 *       thawed consumer delivers nothing it had not read before it was frozen, and a push or a read
 *       that was already past the first fence when the process stopped is refused by the server.
 *   <li>A write that was past the first fence when the process stopped lands late, but late writes
 *       are harmless: the owner row changes only by compare-and-set on its epoch, snapshot, fill
 *       and adoption rows are put-if-absent under a batch token no other consumer refers to, and a
 *       purge deletes only batches older than the newest ones it keeps.
 * </ol>
 *
 * Once a loss is seen, the consumer writes, pushes and heartbeats nothing more, and every later
 * call fails with the same exception. Thread-safe: {@link #tick()}, pushes and meta writes may run
 * on different threads; {@link #close()} waits for the calls in flight and no call starts after.
 */
@Internal
public final class TunnelConsumer implements AutoCloseable {

    /** Extra heartbeats (after a finish, or for a newly opened channel) at most this often. */
    public static final Duration MIN_EXTRA_HEARTBEAT_GAP = Duration.ofMillis(500);

    private static final Logger LOG = LoggerFactory.getLogger(TunnelConsumer.class);

    /**
     * What a consumer needs to open.
     *
     * @param engine whose words the messages use
     * @param opener the tunnel to read, and whether to create it
     * @param consumerId the consumer's id in the owner lease (a Spark checkpoint location, a Flink
     *     job's generated id)
     * @param metaTableName the meta table's name, for messages
     * @param session the tunnel client's tag and heartbeat settings
     * @param fullSnapshotEvery a full meta snapshot after this many deltas
     * @param retentionBatches how many of the newest batches the meta table keeps
     * @param restoredHolder the lease acquisition ({@link OwnerLeaseKeeper#holder()}) the engine's
     *     restored state was written under, if the engine keeps it: a run restarted after that
     *     acquisition was lost to another run in this JVM is refused ({@link LostLeases})
     */
    public record Setup(
            Engine engine,
            TunnelOpener opener,
            String consumerId,
            String metaTableName,
            TunnelSessionConfig session,
            int fullSnapshotEvery,
            int retentionBatches,
            Optional<String> restoredHolder) {

        public Setup {
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(opener, "opener");
            Objects.requireNonNull(consumerId, "consumerId");
            Objects.requireNonNull(metaTableName, "metaTableName");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(restoredHolder, "restoredHolder");
            if (retentionBatches < 1) {
                throw new IllegalArgumentException(
                        "retentionBatches must be at least 1 but was " + retentionBatches);
            }
        }

        /**
         * The setup of a consumer of the source {@code settings} describe (table, tunnel, how a
         * missing tunnel is created and where it starts, meta table, full-snapshot interval and
         * retention), the same in both engines; without a restored acquisition.
         */
        public static Setup of(
                Engine engine,
                SourceSettings settings,
                String consumerId,
                TunnelSessionConfig session) {
            return new Setup(
                    engine,
                    new TunnelOpener(
                            engine,
                            settings.tableName(),
                            settings.tunnelName(),
                            settings.tunnelCreation().tunnelType(),
                            settings.tunnelStart()),
                    consumerId,
                    settings.metaTable(),
                    session,
                    settings.metaFullSnapshotEvery(),
                    settings.metaRetentionBatches());
        }

        /** A setup without a restored acquisition. */
        public Setup(
                Engine engine,
                TunnelOpener opener,
                String consumerId,
                String metaTableName,
                TunnelSessionConfig session,
                int fullSnapshotEvery,
                int retentionBatches) {
            this(
                    engine,
                    opener,
                    consumerId,
                    metaTableName,
                    session,
                    fullSnapshotEvery,
                    retentionBatches,
                    Optional.empty());
        }

        /** This setup for state written under the lease acquisition {@code holder}. */
        public Setup restoredUnder(Optional<String> holder) {
            return new Setup(
                    engine,
                    opener,
                    consumerId,
                    metaTableName,
                    session,
                    fullSnapshotEvery,
                    retentionBatches,
                    holder);
        }
    }

    private final Setup setup;
    private final TunnelProxy proxy;
    private final MetaTableClient metaClient;
    private final TunnelDescription tunnel;
    private final OwnerLeaseKeeper owner;
    private final TunnelMeta fenced;
    private final CatchUpReporter catchUp;
    private final ServerPushLedger pushes;
    private final Optional<Executor> requests;
    private final CommittedMerge merges;
    private final LongSupplier nanoClock;
    private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Map<String, ChannelPosition> adoptions = new HashMap<>();
    private TunnelSession session;
    private Optional<BatchToken> lastSnapshot = Optional.empty();

    private volatile OwnershipLostException lost;
    private volatile boolean closed;
    private volatile long lastHeartbeatNanos;
    private volatile boolean heartbeatSoon;
    private volatile int finishRoundsHeartbeated;

    private TunnelConsumer(
            Setup setup,
            TunnelProxy proxy,
            MetaTableClient metaClient,
            TunnelDescription tunnel,
            OwnerLeaseKeeper owner,
            ServerPushLedger pushes,
            Optional<Executor> metaRequests,
            Optional<Executor> requests) {
        this.setup = setup;
        this.proxy = proxy;
        this.metaClient = metaClient;
        this.tunnel = tunnel;
        this.owner = owner;
        this.pushes = pushes;
        this.requests = requests;
        this.merges = new CommittedMerge(this, requests);
        this.nanoClock = System::nanoTime;
        this.fenced =
                new MetaTable(
                                new FencedClient(metaClient),
                                Clock.systemUTC(),
                                setup.fullSnapshotEvery(),
                                metaRequests)
                        .tunnel(tunnel.tunnelId());
        this.catchUp =
                new CatchUpReporter(
                        fenced, owner.holder(), System::currentTimeMillis, System::nanoTime);
    }

    /**
     * Opens the consumer in the one open order. The consumer owns {@code proxy} and {@code
     * metaClient} from here on, also when opening fails (they are closed then).
     *
     * @param savedTunnelId the tunnel id of the engine's restored state, if any (a re-created
     *     tunnel is refused)
     * @param pushes the ledger of what the server was told (a restored engine fills it first)
     * @param metaRequests runs independent meta requests of one write at once, if given
     * @param requests runs the per-channel requests of one push at once, if given
     * @throws io.tablestorecdc.checkpoint.meta.OwnershipConflictException when another consumer
     *     reads the tunnel
     */
    public static TunnelConsumer open(
            Setup setup,
            TunnelProxy proxy,
            MetaTableClient metaClient,
            Optional<String> savedTunnelId,
            ServerPushLedger pushes,
            Optional<Executor> metaRequests,
            Optional<Executor> requests) {
        TunnelConsumer consumer = null;
        try {
            refuseRestartOfReplaced(setup);
            TunnelDescription tunnel = setup.opener().open(proxy, savedTunnelId);
            MetaTable plain = new MetaTable(metaClient);
            plain.ensureTable();
            OwnerLeaseKeeper owner;
            try {
                owner =
                        OwnerLeaseKeeper.acquire(
                                plain.tunnel(tunnel.tunnelId()), setup.consumerId());
            } catch (OwnershipConflictException e) {
                throw e.withReleaseCommand(setup.opener().tableName(), setup.opener().tunnelName());
            }
            consumer =
                    new TunnelConsumer(
                            setup,
                            proxy,
                            metaClient,
                            tunnel,
                            owner,
                            pushes,
                            metaRequests,
                            requests);
            consumer.connect();
            return consumer;
        } catch (RuntimeException e) {
            CloseSequence closing = CloseSequence.of("the tunnel consumer that failed to open");
            if (consumer != null) {
                closing.then("close it", consumer::close);
            } else {
                closing.then("close the tunnel client", proxy::close)
                        .then("close the meta table client", metaClient::close);
            }
            try {
                closing.finish();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    /**
     * A run restarted from state whose lease acquisition was lost in this JVM would take the tunnel
     * back from the run that replaced it: it is refused, before any request.
     */
    private static void refuseRestartOfReplaced(Setup setup) {
        if (!LostLeases.lost(setup.restoredHolder())) {
            return;
        }
        throw new OwnershipLostException(
                "tablestore-cdc "
                        + setup.engine().consumer()
                        + " '"
                        + setup.consumerId()
                        + "' on tunnel '"
                        + setup.opener().tunnelName()
                        + "' of table '"
                        + setup.opener().tableName()
                        + "' lost its owner lease to another run started from the same "
                        + setup.engine().state()
                        + ", and is not restarted: a restart would take the tunnel back from that"
                        + " run. Only one query or job may read a tunnel: stop the other one, then"
                        + " start this "
                        + setup.engine().consumer()
                        + " again from its "
                        + setup.engine().state()
                        + " if it is the one to go on.",
                null);
    }

    private void connect() {
        adoptions.putAll(fenced.adoptions());
        owner.shutDownPredecessorClient(proxy);
        session = TunnelSession.open(proxy, tunnel.tunnelId(), setup.session());
        requireOwnership();
        owner.recordClient(session.clientId());
        // The release on close sends the conditional write a renewal sends: one renewal now loads
        // its classes, which a close after an engine closed the job's classloader cannot load.
        renew(true);
        lastHeartbeatNanos = nanoClock.getAsLong();
        LOG.info(
                "tablestore-cdc source of {} {} reads tunnel {} ({}, id {}) of table {} as client {}",
                setup.engine().consumer(),
                setup.consumerId(),
                tunnel.tunnelName(),
                tunnel.type(),
                tunnel.tunnelId(),
                setup.opener().tableName(),
                session.clientId().clientId());
    }

    public TunnelDescription tunnel() {
        return tunnel;
    }

    /**
     * This run's lease acquisition: an engine that keeps it in its state passes it back on a
     * restore ({@link Setup#restoredHolder()}).
     */
    public String holder() {
        return owner.holder();
    }

    public String tunnelId() {
        return tunnel.tunnelId();
    }

    public TunnelClientId clientId() {
        return session.clientId();
    }

    /** The tunnel client: its held channels, its heartbeat state. */
    public TunnelSession session() {
        return session;
    }

    /** The tunnel service, for reads (the server fences them by client; see the class comment). */
    public TunnelProxy proxy() {
        return proxy;
    }

    /**
     * The tunnel's meta rows as this consumer may write them: every write is fenced by the lease.
     */
    public TunnelMeta meta() {
        return fenced;
    }

    /** The engine whose words this consumer's messages use. */
    public Engine engine() {
        return setup.engine();
    }

    /** The consumer's id in the owner lease. */
    public String consumerId() {
        return setup.consumerId();
    }

    /** The data table whose tunnel this consumer reads. */
    public String tableName() {
        return setup.opener().tableName();
    }

    public String metaTableName() {
        return metaClient.tableName();
    }

    /** The catch-up report; written by {@link #tick()}. */
    public CatchUpReporter catchUp() {
        return catchUp;
    }

    /** What the server was told, and what it still lacks. */
    public ServerPushLedger pushes() {
        return pushes;
    }

    /** How many batches the meta table keeps. */
    public int retentionBatches() {
        return setup.retentionBatches();
    }

    // ---- fencing -----------------------------------------------------------------------------

    /**
     * Throws unless this consumer still holds its lease: the owner row must still name this
     * acquisition (one read). Every meta write and push calls it first; an engine calls it too
     * before it hands out work that depends on the lease.
     *
     * @throws OwnershipLostException when the lease was taken over, released by hand or lost before
     */
    public void requireOwnership() {
        throwIfLost();
        Optional<String> now = owner.heldElsewhere();
        if (now.isPresent()) {
            throw lose("The owner row changed: " + now.get() + ".", null);
        }
    }

    /**
     * {@link #requireOwnership()} of each consumer, their owner rows read together through {@code
     * metaTable}, the meta-table client they share: one request per 100 consumers instead of one
     * each (a source of many tables checks every table's lease at each checkpoint). Every consumer
     * whose lease was taken over is marked lost, as its own check would.
     *
     * @throws IllegalArgumentException when a consumer keeps its rows in another meta table
     * @throws OwnershipLostException the loss of the first such consumer, in {@code consumers}'
     *     order
     */
    public static void requireOwnership(MetaTableClient metaTable, List<TunnelConsumer> consumers) {
        consumers.forEach(TunnelConsumer::throwIfLost);
        for (TunnelConsumer consumer : consumers) {
            if (!consumer.metaClient.tableName().equals(metaTable.tableName())) {
                throw new IllegalArgumentException(
                        "The consumer of tunnel '"
                                + consumer.tunnel.tunnelName()
                                + "' keeps its rows in meta table "
                                + consumer.metaClient.tableName()
                                + ", not in "
                                + metaTable.tableName());
            }
        }
        List<String> tunnelIds =
                consumers.stream().map(c -> c.tunnel.tunnelId()).distinct().toList();
        Map<String, Optional<OwnerLease>> owners = new MetaTable(metaTable).owners(tunnelIds);
        OwnershipLostException first = null;
        for (TunnelConsumer consumer : consumers) {
            Optional<String> now =
                    consumer.owner.heldElsewhere(owners.get(consumer.tunnel.tunnelId()));
            if (now.isPresent()) {
                OwnershipLostException lost =
                        consumer.lose("The owner row changed: " + now.get() + ".", null);
                first = first == null ? lost : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Writes the prepared snapshots of many consumers ({@link TunnelMeta#prepare} of each one's
     * {@link #meta()}) in shared requests ({@link TunnelMeta#writeAll}), fenced once for all: every
     * consumer's lease is checked with one read per 100 consumers ({@link
     * #requireOwnership(MetaTableClient, List)}) before the first row, instead of one read before
     * each write of each consumer. A source of many tables writes a batch's snapshots in a few
     * requests this way, whatever the number of tables. What a write past the check cannot harm is
     * said in the class comment: the rows are put-if-absent under batch tokens no other consumer
     * uses. No consumer may close meanwhile: each one's close waits for the write to end.
     *
     * @param metaTable the meta-table client the consumers share, written through as is
     * @throws OwnershipLostException when a consumer's lease was taken over (nothing is written)
     * @throws IllegalStateException when a consumer is closed (nothing is written)
     */
    public static void writeAll(
            MetaTableClient metaTable, Map<TunnelConsumer, PreparedSnapshot> snapshots) {
        List<TunnelConsumer> consumers = List.copyOf(snapshots.keySet());
        List<Lock> held = new ArrayList<>(consumers.size());
        try {
            for (TunnelConsumer consumer : consumers) {
                PreparedSnapshot snapshot = snapshots.get(consumer);
                consumer.requireOwnTunnel(snapshot.tunnelId(), snapshot.token());
                Lock lock = consumer.lifecycle.readLock();
                lock.lock();
                held.add(lock);
                if (consumer.closed) {
                    throw consumer.closedForWrites();
                }
            }
            requireOwnership(metaTable, consumers);
            TunnelMeta.writeAll(metaTable, List.copyOf(snapshots.values()));
        } finally {
            held.forEach(Lock::unlock);
        }
    }

    /**
     * Writes the catch-up reports of many consumers that are due ({@link CatchUpReporter}) in
     * shared requests ({@link TunnelMeta#reportAll}), fenced once for all as {@link #writeAll} is;
     * from the first call on, each consumer's {@link #tick()} leaves its report to this. Nothing is
     * sent when no report is due, so a source may call it often (every second, say). First reports
     * create their rows in the shared requests too; one that finds an earlier run's report is
     * written alone ({@link TunnelMeta#reportProgress}). A report that fails is written again
     * later: reports are for operators and never hold up reading.
     *
     * @param metaTable the meta-table client the consumers share, written through as is
     * @throws OwnershipLostException when a lease with a due report was taken over
     */
    public static void reportAll(MetaTableClient metaTable, Collection<TunnelConsumer> consumers) {
        Map<TunnelConsumer, ConsumerProgress> due = new LinkedHashMap<>();
        for (TunnelConsumer consumer : consumers) {
            consumer.catchUp.writeWithOthers();
            if (!consumer.isClosed() && !consumer.isLost()) {
                consumer.catchUp.takeDue(true).ifPresent(r -> due.put(consumer, r));
            }
        }
        if (due.isEmpty()) {
            return;
        }
        List<Lock> held = new ArrayList<>(due.size());
        List<TunnelConsumer> open = new ArrayList<>(due.size());
        try {
            for (TunnelConsumer consumer : due.keySet()) {
                Lock lock = consumer.lifecycle.readLock();
                lock.lock();
                held.add(lock);
                if (!consumer.closed) {
                    open.add(consumer); // a closed consumer's report is not worth writing
                }
            }
            if (open.isEmpty()) {
                return;
            }
            List<Map.Entry<TunnelMeta, ConsumerProgress>> reports = new ArrayList<>(open.size());
            open.forEach(c -> reports.add(Map.entry(c.fenced, due.get(c))));
            List<Boolean> written;
            try {
                requireOwnership(metaTable, open);
                written = TunnelMeta.reportAll(metaTable, reports);
            } catch (OwnershipLostException e) {
                open.forEach(c -> c.catchUp.markChanged());
                throw e;
            } catch (MetaTableException | TunnelException e) {
                LOG.warn(
                        "Could not write the catch-up reports of {} tunnels; retrying: {}",
                        open.size(),
                        e.getMessage());
                open.forEach(c -> c.catchUp.markChanged());
                return;
            }
            for (int i = 0; i < open.size(); i++) {
                if (!written.get(i)) {
                    reportAlone(open.get(i), reports.get(i).getValue());
                }
            }
        } finally {
            held.forEach(Lock::unlock);
        }
    }

    /** A report the shared write could not place, through the consumer's own fenced rows. */
    private static void reportAlone(TunnelConsumer consumer, ConsumerProgress report) {
        try {
            if (!consumer.fenced.reportProgress(report)) {
                consumer.catchUp.markChanged();
            }
        } catch (OwnershipLostException e) {
            throw e;
        } catch (MetaTableException | TunnelException e) {
            LOG.warn(
                    "Could not write the catch-up report of tunnel {}; retrying: {}",
                    consumer.tunnel.tunnelId(),
                    e.getMessage());
            consumer.catchUp.markChanged();
        }
    }

    /** Throws the loss seen before, if any; no request. */
    public void throwIfLost() {
        OwnershipLostException stoppedBy = lost;
        if (stoppedBy != null) {
            throw stoppedBy;
        }
    }

    /** Whether {@link #close()} was called: the consumer writes, pushes and reads nothing more. */
    public boolean isClosed() {
        return closed;
    }

    /** Whether a loss of the lease was seen. */
    public boolean isLost() {
        return lost != null;
    }

    /**
     * Throws what stopped this consumer: a lost lease, or a tunnel client the server stopped (the
     * owner row is read then, so that a client a new owner shut down is reported as the lost lease
     * it is).
     */
    public void checkHealthy() {
        throwIfLost();
        if (session.failure().isPresent() && !closed) {
            requireOwnership();
        }
        session.checkHealthy();
    }

    /**
     * What a tunnel error means for this consumer: when the server no longer knows its client
     * ({@link TunnelException.Kind#LOST_OWNERSHIP}: a new owner shuts the old owner's client down
     * when it starts) and the owner row names another acquisition, the lost lease it is; otherwise
     * {@code error} itself. One owner-row read, only for such an error.
     */
    public RuntimeException explain(TunnelException error) {
        if (error.kind() != TunnelException.Kind.LOST_OWNERSHIP || closed) {
            return error;
        }
        try {
            requireOwnership();
        } catch (OwnershipLostException lostLease) {
            return lostLease;
        } catch (RuntimeException unreadable) {
            error.addSuppressed(unreadable);
        }
        return error;
    }

    private synchronized OwnershipLostException lose(String detail, Throwable cause) {
        if (lost == null) {
            owner.markLost();
            lost =
                    new OwnershipLostException(
                            "tablestore-cdc "
                                    + setup.engine().consumer()
                                    + " '"
                                    + setup.consumerId()
                                    + "' on tunnel '"
                                    + tunnel.tunnelName()
                                    + "' of table '"
                                    + setup.opener().tableName()
                                    + "' lost its owner lease in meta table '"
                                    + setup.metaTableName()
                                    + "' and stops: it writes no meta row, pushes no position and"
                                    + " reads nothing more, so that it does not interleave with"
                                    + " the new owner. "
                                    + detail
                                    + " Only one query or job may read a tunnel: stop the other"
                                    + " one (or give one of them its own tunnel). To go on with"
                                    + " this one instead, stop the other first, then restart this"
                                    + " "
                                    + setup.engine().consumer()
                                    + " from its "
                                    + setup.engine().state()
                                    + "; it resumes after what it last committed.",
                            cause);
            LOG.error("{}", lost.getMessage());
            rememberLost();
        }
        return lost;
    }

    // ---- the periodic work -------------------------------------------------------------------

    /**
     * The consumer's periodic work, each part when due: renews the lease, writes the catch-up
     * report, heartbeats. Call it often (every second, say); it sends nothing when nothing is due.
     *
     * @throws OwnershipLostException when the lease was taken over
     */
    public void tick() {
        lifecycle.readLock().lock();
        try {
            if (closed) {
                return;
            }
            throwIfLost();
            renew(false);
            catchUp.flushIfDue();
            heartbeatIfDue();
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    private void renew(boolean now) {
        try {
            if (now) {
                owner.renew();
            } else {
                owner.renewIfDue();
            }
        } catch (OwnershipLostException e) {
            throw lose("Its lease renewal found the lease taken over.", e);
        }
    }

    private void heartbeatIfDue() {
        long now = nanoClock.getAsLong();
        long since = now - lastHeartbeatNanos;
        boolean early = heartbeatSoon && since >= MIN_EXTRA_HEARTBEAT_GAP.toNanos();
        if (early || since >= setup.session().heartbeatInterval().toNanos()) {
            heartbeatNow();
        }
    }

    private void heartbeatNow() {
        heartbeatSoon = false;
        lastHeartbeatNanos = nanoClock.getAsLong();
        int rounds = pushes.finishRounds();
        session.heartbeatOnce();
        finishRoundsHeartbeated = rounds;
    }

    /** Makes the next {@link #tick()} heartbeat (a channel opened on the server, say). */
    public void heartbeatSoon() {
        heartbeatSoon = true;
    }

    /** Makes the next {@link #tick()} heartbeat whatever the gap since the last (tests). */
    public void heartbeatNextTick() {
        heartbeatSoon = true;
        lastHeartbeatNanos = nanoClock.getAsLong() - MIN_EXTRA_HEARTBEAT_GAP.toNanos();
    }

    /** Makes the next {@link #tick()} renew the lease (tests). */
    public void renewNextTick() {
        owner.renewNextTime();
    }

    /**
     * How many acknowledged pushes with finishes the last heartbeat followed: a listing made after
     * it shows their channels terminated.
     */
    public int finishRoundsHeartbeated() {
        return finishRoundsHeartbeated;
    }

    // ---- channels ----------------------------------------------------------------------------

    /**
     * The server's checkpoint of a channel, or empty when it has none yet: a {@code WAIT} child may
     * have none until it opens, which the server answers as not found or with an empty checkpoint.
     */
    public Optional<ChannelPosition> serverCheckpoint(String channelId) {
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

    /**
     * Where a channel new to the engine's state starts (invariant 5): where this consumer first
     * adopted it if {@code history} says so (a restore from older state), otherwise at the server's
     * checkpoint; empty while the server has no checkpoint for it (ask again later).
     */
    public Optional<ChannelPosition> startOf(String channelId, AdoptionHistory history) {
        Optional<ChannelPosition> server = serverCheckpoint(channelId);
        Optional<ChannelPosition> earlier = history.firstAdoptedAt(channelId);
        if (earlier.isPresent()) {
            if (server.isPresent() && !earlier.get().equals(server.get())) {
                LOG.warn(
                        "{}",
                        new ServerAhead(channelId, earlier.get(), "checkpoint " + server.get())
                                .message());
            }
            return earlier;
        }
        return server;
    }

    /**
     * Merges the last committed snapshot ({@code committed}, empty for a first start) with the
     * server's listing into the start of the next batch, for an engine that plans batches from
     * committed snapshots (Spark). A first start adopts channels at their server checkpoints, so
     * that a consumer with new state takes over where the last one stopped; later merges restart a
     * channel this consumer adopted before at its first adoption (invariant 5). Warnings are
     * logged, channels skipped under {@code on.server.ahead=skip} once per run, and the adoptions
     * recorded (fenced).
     *
     * @throws io.tablestorecdc.checkpoint.merge.ServerAheadException under {@code
     *     on.server.ahead=fail}, in the engine's words
     * @throws io.tablestorecdc.checkpoint.merge.VanishedChannelException under {@code
     *     on.vanished.channel=fail}
     */
    public MergeResult merge(
            Optional<BatchSnapshot> committed,
            List<ServerChannel> listed,
            VanishedChannelPolicy onVanished,
            ServerAheadPolicy onServerAhead) {
        return merges.merge(committed, listed, onVanished, onServerAhead);
    }

    /** Channels skipped under {@code on.server.ahead=skip} by {@link #merge} in this run. */
    public int channelsSkippedOnServerAhead() {
        return merges.channelsSkippedOnServerAhead();
    }

    /**
     * Where this consumer first adopted each channel, as recorded: read at open and kept up to date
     * by {@link #recordAdoptions}. An engine restarted from its saved state goes back to them
     * (invariant 5); a consumer started without state takes over where the server stands and uses
     * {@link AdoptionHistory#none()} instead.
     */
    public synchronized AdoptionHistory adoptionHistory() {
        return AdoptionHistory.of(new HashMap<>(adoptions));
    }

    /**
     * Records where channels were first adopted, once each: those recorded before (by this run or
     * an earlier one) are not written again. Fenced.
     */
    public void recordAdoptions(Collection<ChannelCheckpoint> adopted) {
        List<ChannelCheckpoint> fresh = unrecorded(adopted);
        if (fresh.isEmpty()) {
            return;
        }
        fenced.recordAdoptions(fresh);
        synchronized (this) {
            fresh.forEach(e -> adoptions.putIfAbsent(e.channelId(), e.adoptedAt()));
        }
    }

    /** Those of {@code adopted} whose channels have no adoption record yet, each once. */
    private synchronized List<ChannelCheckpoint> unrecorded(Collection<ChannelCheckpoint> adopted) {
        List<ChannelCheckpoint> fresh = new ArrayList<>();
        for (ChannelCheckpoint entry : adopted) {
            if (!adoptions.containsKey(entry.channelId())
                    && fresh.stream().noneMatch(f -> f.channelId().equals(entry.channelId()))) {
                fresh.add(entry);
            }
        }
        return fresh;
    }

    // ---- meta snapshots ----------------------------------------------------------------------

    /**
     * Writes {@code snapshot} as batch {@code sequence} with the adoptions it needs, then purges
     * all but the newest {@link #retentionBatches()} batches (invariant 7). The snapshot is a delta
     * over the one this consumer wrote last when that is cheaper (the first of a run is full); a
     * failed write is not built on. Fenced.
     */
    public void writeSnapshot(
            BatchSnapshot snapshot, long sequence, Collection<ChannelCheckpoint> adopted) {
        recordAdoptions(adopted);
        Optional<BatchToken> after;
        synchronized (this) {
            after = lastSnapshot;
        }
        fenced.write(snapshot, sequence, after);
        synchronized (this) {
            lastSnapshot = Optional.of(snapshot.token());
        }
        PurgeResult purged = fenced.purge(setup.retentionBatches());
        LOG.debug(
                "Wrote meta snapshot {} as batch {} ({} channels); purge: {}",
                snapshot.token(),
                sequence,
                snapshot.channels().size(),
                purged);
    }

    /**
     * One consumer's part of {@link #writeSnapshots}: what {@link #writeSnapshot} takes.
     *
     * @param snapshot the consumer's committed positions under a fresh batch token
     * @param sequence the batch number (the Flink checkpoint id)
     * @param adopted the adoptions the snapshot needs recorded first
     */
    public record SnapshotWrite(
            BatchSnapshot snapshot, long sequence, Collection<ChannelCheckpoint> adopted) {}

    /**
     * {@link #writeSnapshot} of many consumers that share one meta table, in shared requests: each
     * one's new adoptions recorded first (a request only when a channel is new), every snapshot
     * prepared (a delta over the consumer's last one when cheaper) and written together by {@link
     * #writeAll}, fenced once for all; then each consumer purges (no request while its meta rows
     * are within the retention). A source of many tables so writes a checkpoint's snapshots in a
     * few requests, whatever the number of tables. A failed write is not built on.
     *
     * @throws OwnershipLostException when a consumer's lease was taken over (no snapshot is
     *     written)
     */
    public static void writeSnapshots(
            MetaTableClient metaTable, Map<TunnelConsumer, SnapshotWrite> writes) {
        Map<TunnelConsumer, PreparedSnapshot> prepared = new LinkedHashMap<>();
        Map<TunnelConsumer, List<ChannelCheckpoint>> freshAdoptions = new HashMap<>();
        for (Map.Entry<TunnelConsumer, SnapshotWrite> e : writes.entrySet()) {
            TunnelConsumer consumer = e.getKey();
            BatchSnapshot snapshot = e.getValue().snapshot();
            consumer.requireOwnTunnel(snapshot.tunnelId(), snapshot.token());
            List<ChannelCheckpoint> fresh = consumer.unrecorded(e.getValue().adopted());
            freshAdoptions.put(consumer, fresh);
            Optional<BatchToken> after;
            synchronized (consumer) {
                after = consumer.lastSnapshot;
            }
            prepared.put(
                    consumer,
                    consumer.fenced.prepare(
                            snapshot.token(),
                            e.getValue().sequence(),
                            after,
                            snapshot.channels().keySet(),
                            snapshot.channels().values(),
                            fresh));
        }
        writeAll(metaTable, prepared);
        for (Map.Entry<TunnelConsumer, SnapshotWrite> e : writes.entrySet()) {
            TunnelConsumer consumer = e.getKey();
            BatchSnapshot snapshot = e.getValue().snapshot();
            synchronized (consumer) {
                consumer.lastSnapshot = Optional.of(snapshot.token());
                freshAdoptions
                        .get(consumer)
                        .forEach(a -> consumer.adoptions.putIfAbsent(a.channelId(), a.adoptedAt()));
            }
            PurgeResult purged = consumer.fenced.purge(consumer.setup.retentionBatches());
            LOG.debug(
                    "Wrote meta snapshot {} as batch {} ({} channels) with {} other tables;"
                            + " purge: {}",
                    snapshot.token(),
                    e.getValue().sequence(),
                    snapshot.channels().size(),
                    writes.size() - 1,
                    purged);
        }
    }

    // ---- server pushes -----------------------------------------------------------------------

    /**
     * Pushes {@code plan} to the tunnel server (one checkpoint request per channel, at once when a
     * request pool was given) and records the outcome in the ledger; after finishes, heartbeats at
     * once, so that the server opens their children. A closed consumer pushes nothing. Fenced.
     *
     * @return whether the plan was sent (false once closed)
     * @throws TunnelException the first failure, preferring one that stops the client; the plan is
     *     then recorded failed and planned again with the next commit
     */
    public boolean push(ServerCommitPlan plan) {
        lifecycle.readLock().lock();
        try {
            if (closed) {
                return false; // a closing consumer pushes nothing; its successor starts from state
            }
            try {
                requireOwnership();
            } catch (RuntimeException e) {
                pushes.failed(plan);
                throw e;
            }
            pushOwned(plan);
            return true;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * {@link #push} of many consumers that share one meta table, their leases checked together
     * first ({@link #requireOwnership(MetaTableClient, List)}: one read per 100 consumers instead
     * of one each); then each consumer's plan is pushed, one failing not stopping the others. A
     * closed consumer pushes nothing.
     *
     * @return the consumers whose push failed, with the failure (their plans are recorded failed
     *     and planned again, as after {@link #push})
     * @throws OwnershipLostException when a consumer's lease was taken over (nothing is pushed)
     */
    public static Map<TunnelConsumer, RuntimeException> pushAll(
            MetaTableClient metaTable, Map<TunnelConsumer, ServerCommitPlan> plans) {
        Map<TunnelConsumer, RuntimeException> failed = new LinkedHashMap<>();
        List<TunnelConsumer> open = new ArrayList<>();
        List<Lock> held = new ArrayList<>();
        try {
            for (TunnelConsumer consumer : plans.keySet()) {
                Lock lock = consumer.lifecycle.readLock();
                lock.lock();
                held.add(lock);
                if (!consumer.closed) {
                    open.add(consumer);
                }
            }
            if (open.isEmpty()) {
                return failed;
            }
            try {
                requireOwnership(metaTable, open);
            } catch (RuntimeException e) {
                open.forEach(c -> c.pushes.failed(plans.get(c)));
                throw e;
            }
            for (TunnelConsumer consumer : open) {
                try {
                    consumer.pushOwned(plans.get(consumer));
                } catch (RuntimeException e) {
                    failed.put(consumer, e);
                }
            }
            return failed;
        } finally {
            held.forEach(Lock::unlock);
        }
    }

    /** Pushes {@code plan}, the lease checked; records the outcome in the ledger. */
    private void pushOwned(ServerCommitPlan plan) {
        try {
            Map<String, ChannelPosition> all = new TreeMap<>(plan.positions());
            plan.finishes().forEach(id -> all.put(id, ChannelPosition.finished()));
            checkpointAll(all);
        } catch (RuntimeException e) {
            pushes.failed(plan);
            throw e;
        }
        pushes.acknowledged(plan);
        if (!plan.finishes().isEmpty()) {
            heartbeatNow();
        }
    }

    private void checkpointAll(Map<String, ChannelPosition> positions) {
        if (requests.isEmpty() || positions.size() < 2) {
            positions.forEach(session::checkpoint);
            return;
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>(positions.size());
        positions.forEach(
                (id, position) ->
                        sent.add(
                                CompletableFuture.runAsync(
                                        () -> session.checkpoint(id, position), requests.get())));
        List<TunnelException> failures = new ArrayList<>();
        for (CompletableFuture<Void> request : sent) {
            try {
                joined(request);
            } catch (TunnelException e) {
                failures.add(e);
            }
        }
        Optional<TunnelException> first =
                failures.stream()
                        .filter(TunnelException::stopsClient)
                        .findFirst()
                        .or(() -> failures.stream().findFirst());
        if (first.isPresent()) {
            throw first.get();
        }
    }

    /** The request's own failure (a TunnelException, say), not the future's wrapper. */
    public static <T> T joined(CompletableFuture<T> request) {
        try {
            return request.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    // ---- close -------------------------------------------------------------------------------

    /**
     * Closes in the one close order: the tunnel client shut down first (no push of this consumer
     * reaches the server after it), then the lease released (unless it was lost: it is another
     * consumer's then) so that the next owner may start at once, then the SDK clients' I/O threads
     * stopped. Waits for a tick or push in flight; none starts after. Every step runs even when one
     * before failed; the first failure is rethrown. A second call does nothing.
     */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            CloseSequence.of("the consumer of tunnel '" + setup.opener().tunnelName() + "'")
                    .then("shut down the tunnel client", this::closeSession)
                    .then("release the owner lease", this::release)
                    .then("close the tunnel client", proxy::close)
                    .then("close the meta table client", metaClient::close)
                    .finish();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** Releases the lease; one found taken over is remembered as lost ({@link LostLeases}). */
    private void release() {
        if (!owner.release()) {
            rememberLost();
        }
    }

    private void requireOwnTunnel(String tunnelId, BatchToken token) {
        if (!tunnelId.equals(tunnel.tunnelId())) {
            throw new IllegalArgumentException(
                    "The snapshot of batch token "
                            + token
                            + " belongs to tunnel "
                            + tunnelId
                            + ", not to the consumer of tunnel "
                            + tunnel.tunnelId());
        }
    }

    private IllegalStateException closedForWrites() {
        return new IllegalStateException(
                "The consumer of tunnel '"
                        + setup.opener().tunnelName()
                        + "' is closed and has released its owner lease: it writes no meta row any"
                        + " more. A write started after the source stopped is dropped; the next run"
                        + " writes its own.");
    }

    private void rememberLost() {
        List<String> holders = new ArrayList<>(2);
        holders.add(owner.holder());
        setup.restoredHolder().ifPresent(holders::add);
        LostLeases.remember(holders);
    }

    private void closeSession() {
        if (session != null) {
            session.close();
        }
    }

    /**
     * The meta table with every write fenced by the lease; reads change nothing. A write holds the
     * lifecycle's read lock, so that {@link #close()} waits for the writes in flight and none
     * starts after it: a write still running when the engine closes the consumer would otherwise
     * find the lease released by that close and take it for a lost one.
     */
    private final class FencedClient extends ForwardingMetaTableClient {

        FencedClient(MetaTableClient table) {
            super(table);
        }

        @Override
        public PutOutcome putIfAbsent(MetaRow row) {
            return fenced(() -> super.putIfAbsent(row));
        }

        @Override
        public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
            return fenced(() -> super.putAllIfAbsent(rows));
        }

        @Override
        public boolean replaceIf(MetaRow row, String column, MetaValue expected) {
            return fenced(() -> super.replaceIf(row, column, expected));
        }

        @Override
        public List<Boolean> replaceAllIf(List<ConditionalReplace> replaces) {
            return fenced(() -> super.replaceAllIf(replaces));
        }

        @Override
        public void deleteAll(List<MetaRowKey> keys) {
            fenced(
                    () -> {
                        super.deleteAll(keys);
                        return null;
                    });
        }

        private <T> T fenced(Supplier<T> write) {
            lifecycle.readLock().lock();
            try {
                if (closed) {
                    throw closedForWrites();
                }
                requireOwnership();
                return write.get();
            } finally {
                lifecycle.readLock().unlock();
            }
        }
    }
}
