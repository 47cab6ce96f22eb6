package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.gate.GateDecision;
import io.tablestorecdc.checkpoint.gate.ParentChildGate;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.ServerFinishedCheck;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel client of a Flink job for one table, a thin adapter over the core (docs/design.md,
 * "How a change flows"). By role: {@link TunnelConnection} schedules the core's consumer (open and
 * close order, fencing by the owner lease, invariant 8) and lists on the worker thread; the core's
 * {@link ParentChildGate} decides which channels the server opened may become splits (invariant 4);
 * {@link SplitTracker} keeps every split's state, tombstones included (invariant 6); {@link
 * SplitAssigner} hands splits to readers (waiting for every reader before the first assignment);
 * {@link CheckpointCommits} maps Flink checkpoints onto the core's commit model, so that a finish
 * reaches the server only after a checkpoint that contains it completed (invariant 3); {@link
 * SourceCompletion} says when a bounded source is done.
 *
 * <p>The source's enumerator ({@link TablestoreCdcEnumerator}) runs one per table it reads, and is
 * the {@link TableLink} through which this one reaches readers: splits and channel ids here are the
 * table's own, by channel id.
 *
 * <p>Threads: this class and its tracker are touched only in the coordinator thread; the connection
 * runs on the worker thread and shares only thread-safe state (the push ledger, the tracker's
 * immutable {@code knownIds}).
 */
@Internal
final class TableEnumerator {

    private static final Logger LOG = LoggerFactory.getLogger(TableEnumerator.class);

    private final SplitEnumeratorContext<ChannelSplit> context;
    private final TableLink link;
    private final TablestoreCdcSourceConfig config;
    private final TunnelProxy proxy;
    private final MetaTableClient metaClient;
    private final String consumerId;
    private final SplitTracker splits;
    private final SplitAssigner assigner = SplitAssigner.balanced();
    private final CheckpointCommits commits = new CheckpointCommits();
    private final CommitWait commitWait =
            new CommitWait(CommitWait.DEFAULT_PATIENCE, System::nanoTime);

    private final Optional<Long> restoredFrom;
    private final Optional<String> restoredHolder;
    private final boolean restoredState;
    private Set<String> skipped = Set.of();
    private ServerFinishedCheck serverFinished = ServerFinishedCheck.none();
    private Optional<String> tunnelId;
    private TunnelType tunnelType;
    private TunnelConnection connection;
    private CommitPublisher publisher;
    private boolean firstAssignmentDone;
    private boolean complete;
    private List<ServerChannel> lastListing = List.of();
    private int finishRoundsListed;
    private volatile boolean closing;

    /**
     * An enumerator of the table of {@code config}, connecting with {@code proxy} and {@code
     * metaClient} (closed with the enumerator), restoring {@code restored}.
     */
    TableEnumerator(
            SplitEnumeratorContext<ChannelSplit> context,
            TableLink link,
            TablestoreCdcSourceConfig config,
            TunnelProxy proxy,
            MetaTableClient metaClient,
            String consumerId,
            EnumeratorState restored) {
        this.context = context;
        this.link = link;
        this.config = config;
        this.proxy = proxy;
        this.metaClient = metaClient;
        this.consumerId = consumerId;
        this.tunnelId = restored.tunnelId();
        this.restoredFrom = restored.checkpointId();
        this.restoredHolder = restored.leaseHolder();
        this.restoredState = restored.tunnelId().isPresent();
        this.splits = SplitTracker.restore(restored);
        commits.restore(restored);
        // Restored assignments live in the readers' restored state.
        firstAssignmentDone = splits.assignedCount() > 0;
    }

    /** Connects to the table's tunnel and starts the discovery rounds. */
    void start() {
        connect();
        begin();
    }

    /**
     * Connects to the table's tunnel (the network part of {@link #start}; touches nothing the
     * coordinator thread reads, so that a source opens several tables at once).
     */
    void connect() {
        try {
            connection =
                    TunnelConnection.open(
                            config,
                            proxy,
                            metaClient,
                            consumerId,
                            tunnelId,
                            restoredHolder,
                            commits.pushes());
        } catch (RuntimeException e) {
            OwnershipLoss.rethrow(e); // a restart of a job that lost its lease is not restarted
            throw e;
        }
    }

    /** The rest of {@link #start} after {@link #connect}, on the coordinator thread. */
    void begin() {
        tunnelId = Optional.of(connection.tunnel().tunnelId());
        tunnelType = connection.tunnel().type();
        lastListing = connection.tunnel().channels();
        if (restoredState) {
            RestoredState.Outcome restore =
                    RestoredState.check(
                            config, splits, commits, connection, restoredFrom, lastListing);
            skipped = restore.skipped();
            serverFinished = restore.forReaders();
        }
        // A restored state is a completed checkpoint: its finishes are durable, and those the
        // server does not show terminated may never have reached it.
        commits.pushes().restoredFinishes(splits.finishedIds(), lastListing);
        LOG.info(
                "Tablestore CDC enumerator connected to tunnel {} ({}) of table {} as client {},"
                        + " owner {}; restored {} unassigned, {} assigned, {} finished channel(s)",
                config.tunnelName(),
                tunnelType,
                config.tableName(),
                connection.consumer().clientId().clientId(),
                consumerId,
                splits.unassignedCount(),
                splits.assignedCount(),
                splits.finishedCount());
        publisher =
                new CommitPublisher(
                        context, commits, connection, this::signalNoMoreSplitsIfComplete);
        registerMetrics();
        long tick =
                Math.min(
                        config.discoveryInterval().toMillis(),
                        config.heartbeatInterval().toMillis());
        context.callAsync(
                () -> connection.discover(splits.knownIds()), this::onDiscovery, 0L, tick);
        pushCommitted();
    }

    private void onDiscovery(ChannelDiscovery discovery, Throwable error) {
        if (closing || (error == null && discovery == null)) {
            return; // a round that raced with close(); its session is gone
        }
        if (error != null) {
            if (link.isGone(error)) {
                return; // the table was dropped: the source closed this enumerator
            }
            OwnershipLoss.rethrow(error);
            throw new FlinkRuntimeException(
                    "Discovering the channels of tunnel '"
                            + config.tunnelName()
                            + "' failed: "
                            + error.getMessage(),
                    error);
        }
        lastListing = discovery.listing();
        finishRoundsListed = discovery.finishPushesCovered();
        adopt(discovery);
        assignPending();
        signalNoMoreSplitsIfComplete();
        commitWait.observe(splits.uncommittedFinishes(), config.tunnelName()).ifPresent(LOG::warn);
    }

    /**
     * Adopts the channels the server opened to this client that the core's gate lets through: one
     * the server finished before this job saw it becomes a tombstone; one the gate holds (a stream
     * channel while base data is unfinished, one the listing does not show open to this client)
     * stays unknown, and a later round offers it again.
     */
    private void adopt(ChannelDiscovery discovery) {
        Map<String, ChannelCheckpoint> entries = splits.entries();
        Map<String, ChannelSplit> fresh = new TreeMap<>();
        discovery.candidates().values().stream()
                .filter(split -> !splits.isKnown(split.splitId()))
                .forEach(
                        split -> {
                            fresh.put(split.splitId(), split);
                            entries.put(
                                    split.splitId(),
                                    ChannelCheckpoint.adopted(
                                            split.splitId(), split.type(), split.position()));
                        });
        Map<String, ServerChannel> listed = new TreeMap<>();
        discovery.listing().forEach(c -> listed.put(c.channelId(), c));
        GateDecision gate =
                new ParentChildGate(
                                tunnelType,
                                Optional.of(connection.consumer().clientId().clientId()))
                        .decide(entries, listed);
        for (ChannelSplit split : fresh.values()) {
            if (split.isFinished()) {
                splits.addFinished(split); // finished before this job saw it
            } else if (gate.isReadable(split.splitId())) {
                LOG.info("Discovered channel {} at {}", split.splitId(), split.position());
                splits.addUnassigned(split);
            } else {
                LOG.debug(
                        "Holding channel {}: {}",
                        split.splitId(),
                        gate.held().get(split.splitId()));
                continue;
            }
            commits.adopt(split.splitId(), split.type(), split.position());
        }
    }

    private void assignPending() {
        Set<Integer> readers = context.registeredReaders().keySet();
        if (splits.unassignedCount() == 0 || readers.isEmpty()) {
            return;
        }
        if (!firstAssignmentDone && readers.size() < context.currentParallelism()) {
            return; // wait for every reader, so the first assignment is balanced
        }
        if (awaitsReaderJudgement()) {
            return;
        }
        Map<Integer, List<ChannelSplit>> plan =
                assigner.assign(List.copyOf(splits.unassigned().values()), link.load(readers));
        plan.forEach((subtask, given) -> given.forEach(s -> splits.markAssigned(s, subtask)));
        link.assign(plan);
        firstAssignmentDone = true;
        LOG.info("Assigned channels {}", plan);
    }

    /**
     * Whether a reader still judges a restored assigned channel the server finished ({@link
     * RestoredState}): nothing new is assigned until it reported the channel finished (its state
     * held it finished, or it ended it unread under {@code on.server.ahead=skip}). Under {@code
     * fail} the reader fails first, so the job fails with the reason, not with a split event lost
     * to a failed reader.
     */
    private boolean awaitsReaderJudgement() {
        for (String id : serverFinished.channelIds()) {
            if (!splits.isFinished(id)) {
                LOG.debug("Holding new channels until a reader has judged channel {}", id);
                return true;
            }
        }
        return false;
    }

    /** This table's channels per reader. */
    Map<Integer, Integer> load(Set<Integer> readers) {
        return splits.load(readers);
    }

    /** Whether every channel finished or stopped at the end position (a bounded source). */
    boolean isComplete() {
        return complete;
    }

    private void signalNoMoreSplitsIfComplete() {
        if (complete) {
            return;
        }
        boolean done =
                SourceCompletion.baseDataComplete(tunnelType, splits, lastListing)
                        || (config.stopAt().isPresent()
                                && SourceCompletion.stopAtComplete(
                                        splits, lastListing, commits.pushes(), finishRoundsListed));
        if (done) {
            complete = true;
            LOG.info(
                    "All channels of tunnel {} of table {} finished or stopped at the end position",
                    config.tunnelName(),
                    config.tableName());
            link.completed();
        }
    }

    void addSplitsBack(List<ChannelSplit> given, int subtaskId) {
        // Flink restarts a failed reader from the last completed checkpoint and gives back the
        // splits assigned since; finishes it reported since are undone too (the enumerator may
        // outlive the reader: a regional failover keeps it).
        List<String> reverted = splits.revertFinishes(subtaskId, commits::isCommittedFinish);
        if (!reverted.isEmpty()) {
            commits.undoFinishes(reverted);
            LOG.info(
                    "Reader {} restarted before its finish of channels {} was committed: they are"
                            + " its channels again until it reports them finished again",
                    subtaskId,
                    reverted);
        }
        splits.giveBack(given);
        LOG.info("Reader {} gave back channels {}", subtaskId, given);
        assignPending();
    }

    void addReader(int subtaskId) {
        if (connection != null) {
            link.send(
                    subtaskId,
                    new TunnelClientEvent(
                            connection.consumer().clientId(), skipped, serverFinished));
        }
        assignPending();
    }

    private void reportCatchUp(CommittedPositionsEvent committed) {
        if (connection == null) {
            return;
        }
        for (ChannelSplit split : committed.positions()) {
            if (committed.caughtUp().contains(split.splitId())) {
                connection.consumer().catchUp().caughtUp(split.splitId(), split.position());
            } else {
                connection.consumer().catchUp().behind(split.splitId());
            }
        }
    }

    void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ChannelsFinishedEvent finished) {
            for (String id : finished.channelIds()) {
                boolean known = splits.isKnown(id);
                if (splits.finish(id, subtaskId)) { // false for a repeat after a restore
                    LOG.info("Channel {} finished (reader {})", id, subtaskId);
                }
                if (!known) {
                    LOG.warn("Reader {} reports unknown channel {} finished", subtaskId, id);
                    commits.pushes().owe(id);
                }
            }
            assignPending();
        } else if (event instanceof ChannelsStoppedEvent stopped) {
            for (String id : stopped.channelIds()) {
                if (splits.stop(id)) {
                    LOG.info("Channel {} stopped at the end position (reader {})", id, subtaskId);
                }
            }
        } else if (event instanceof CommittedPositionsEvent committed) {
            committed(committed);
            pushCommitted();
            return;
        } else {
            LOG.warn("Ignoring unknown source event {} from reader {}", event, subtaskId);
            return;
        }
        signalNoMoreSplitsIfComplete();
    }

    /**
     * The checkpoint's state, after one read of the owner row: Flink takes it when a checkpoint
     * starts, before the checkpoint's barriers leave the sources, so that a job whose lease was
     * taken over completes no checkpoint it starts after that (its sinks commit nothing more) and
     * fails without restarts (invariant 8). A meta-table error does not fail the checkpoint: the
     * lease outlives it, and the next renewal tells.
     */
    EnumeratorState snapshotState(long checkpointId) {
        if (connection != null) {
            requireOwnershipFor(checkpointId);
        }
        return stateOf(checkpointId);
    }

    /**
     * The owner-row reads of {@link #snapshotState} of several tables, together ({@link
     * TunnelConsumer#requireOwnership(MetaTableClient, List)}: one request per 100 tables, through
     * the meta-table client the tables share), before each table's {@link #stateOf}; a lost lease
     * and an unreadable meta table are handled as for one table.
     */
    static void requireOwnership(
            MetaTableClient metaTable, Collection<TableEnumerator> tables, long checkpointId) {
        List<TableEnumerator> open = tables.stream().filter(t -> t.connection != null).toList();
        if (open.isEmpty()) {
            return;
        }
        List<TunnelConsumer> consumers = open.stream().map(t -> t.connection.consumer()).toList();
        TableEnumerator any = open.get(0);
        any.checkOwnership(
                () -> TunnelConsumer.requireOwnership(metaTable, consumers), checkpointId);
    }

    /** {@link #snapshotState} after {@link #requireOwnership}, on the coordinator thread. */
    EnumeratorState stateOf(long checkpointId) {
        Optional<String> holder = Optional.empty();
        if (connection != null) {
            holder = Optional.of(connection.consumer().holder());
        }
        commitWait.checkpointBegun();
        commits.recordSnapshot(checkpointId, splits.finishedIds());
        return new EnumeratorState(
                tunnelId,
                Optional.of(consumerId),
                splits.snapshot(),
                Optional.of(checkpointId),
                holder);
    }

    private void requireOwnershipFor(long checkpointId) {
        checkOwnership(connection.consumer()::requireOwnership, checkpointId);
    }

    /** Runs the owner-row check {@code check}: a loss fails the job, a read error is logged. */
    private void checkOwnership(Runnable check, long checkpointId) {
        try {
            check.run();
        } catch (OwnershipLostException lost) {
            // Declines the checkpoint, and fails the job: a restart would take the tunnel back.
            context.callAsync(
                    () -> {
                        throw lost;
                    },
                    (ignored, error) -> OwnershipLoss.rethrow(error));
            throw lost;
        } catch (RuntimeException unreadable) {
            LOG.warn(
                    "Could not read the owner lease of tunnel '{}' for checkpoint {}; taking it"
                            + " (the next renewal checks the lease): {}",
                    config.tunnelName(),
                    checkpointId,
                    unreadable.getMessage());
        }
    }

    void notifyCheckpointComplete(long checkpointId) {
        splits.durable(commits.completed(checkpointId));
        if (publisher != null) {
            publisher.writeMeta(checkpointId); // adoptions recorded before finishes are pushed
            publisher.push();
        }
    }

    /**
     * {@link #notifyCheckpointComplete} of a table of a source of several, whose meta writes the
     * source sends together ({@link TunnelConsumer#writeSnapshots}): the checkpoint's positions and
     * finishes become committed, and the table's snapshot to write is returned (none when nothing
     * changed, or before the table's tunnel is open).
     */
    Optional<CheckpointCommits.MetaWrite> completedForSharedWrite(long checkpointId) {
        splits.durable(commits.completed(checkpointId));
        return publisher == null
                ? Optional.empty()
                : commits.metaWrite(connection.tunnel().tunnelId());
    }

    /** A snapshot of {@link #completedForSharedWrite} was written: its adoptions are recorded. */
    void metaWritten(CheckpointCommits.MetaWrite write) {
        commits.metaWritten(write);
    }

    /**
     * What this table would push to the server now, for a push the source sends with other tables'
     * ({@link TunnelConsumer#pushAll}); empty when nothing, or before the tunnel is open.
     */
    Optional<ServerCommitPlan> planPush() {
        if (publisher == null) {
            return Optional.empty();
        }
        ServerCommitPlan plan = publisher.planPush();
        return plan.isEmpty() ? Optional.empty() : Optional.of(plan);
    }

    /**
     * A reader's committed positions of this table, for a source of several tables that then pushes
     * every table's together ({@link #planPush}).
     */
    void committed(CommittedPositionsEvent committed) {
        commits.committed(committed.positions());
        reportCatchUp(committed);
    }

    /** The outcome of a push of {@link #planPush}, on the coordinator thread. */
    void onPushed(ServerCommitPlan plan, Throwable error) {
        publisher.onPushed(plan, error);
    }

    /** The table's consumer (its tunnel is open). */
    TunnelConsumer consumer() {
        return connection.consumer();
    }

    /** The table's consumer once connected and begun, for the source's shared report writes. */
    Optional<TunnelConsumer> reportingConsumer() {
        return publisher == null || connection.consumer().isClosed()
                ? Optional.empty()
                : Optional.of(connection.consumer());
    }

    /** Pushes what is committed and the server lacks (the core's plan), on the worker thread. */
    void pushCommitted() {
        if (publisher != null) {
            publisher.push();
        }
    }

    /** Makes the next discovery round renew the owner lease (tests). */
    void requestLeaseRenewal() {
        connection.consumer().renewNextTick();
    }

    /** Makes the next discovery round heartbeat first (tests). */
    void requestHeartbeat() {
        connection.consumer().heartbeatNextTick();
    }

    private void registerMetrics() {
        MetricGroup group = link.metrics();
        group.gauge("channelsUnassigned", splits::unassignedCount);
        group.gauge("channelsAssigned", splits::assignedCount);
        group.gauge("channelsFinished", splits::finishedCount);
        group.gauge("channelsFinishedUncommitted", splits::uncommittedFinishes);
        group.gauge("channelsSkippedOnServerAhead", () -> skipped.size());
        group.gauge(
                "channelsWaitingOnServer",
                () ->
                        lastListing.stream()
                                .filter(c -> c.status() == ServerChannelStatus.WAIT)
                                .count());
    }

    /** Closes the connection in the core's order; a second call does nothing. */
    void close() {
        closing = true;
        if (connection != null) {
            connection.close();
        }
    }

    /** The table read. */
    String table() {
        return config.tableName();
    }
}
