package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelSession;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.TunnelMetricGauges;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel client of a Flink job (DESIGN §6): connects, heartbeats and lists channels on a
 * periodic callable, turns each channel the server opened to it into a split, assigns splits to
 * registered readers (balanced, waiting for all readers before the first assignment), and keeps
 * finished channels as tombstones.
 *
 * <p>Invariant 3: a channel's finish reaches the server only after a checkpoint that contains it
 * completed. The finish is known here before the snapshot that records it (the reader reports it
 * after emitting the channel's last record, and before the barrier of the next checkpoint reaches
 * it), so finishes recorded in snapshot N are pushed on {@code notifyCheckpointComplete(N)}.
 * Invariant 4: only channels the server opened to this client become splits, and for BaseAndStream
 * tunnels no stream channel while a base channel is unfinished. Invariant 8: the job's owner lease
 * on the tunnel is taken before its tunnel client connects (a second consumer is refused), renewed
 * by the periodic callable and released on close; the client of a previous run is shut down.
 *
 * <p>All fields are touched only in the coordinator thread, except the tunnel session and proxy
 * (thread-safe) and {@link #knownIds}, a copy for the discovery callable.
 */
@Internal
public final class TablestoreCdcEnumerator
        implements SplitEnumerator<ChannelSplit, EnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreCdcEnumerator.class);

    /** Extra heartbeats (after a finish, or for a newly opened channel) at most this often. */
    static final Duration MIN_EXTRA_HEARTBEAT_GAP = Duration.ofMillis(500);

    private final SplitEnumeratorContext<ChannelSplit> context;
    private final TablestoreCdcSourceConfig config;
    private final TunnelProxyFactory proxyFactory;
    private final MetaTableClientFactory metaFactory;
    private final String consumerId;

    private final SortedMap<String, ChannelSplit> unassigned = new TreeMap<>();
    private final SortedMap<String, ChannelSplit> assigned = new TreeMap<>();
    private final SortedMap<String, ChannelSplit> finished = new TreeMap<>();
    private final Map<String, Integer> owners = new HashMap<>();
    private final TreeMap<Long, Set<String>> finishesBySnapshot = new TreeMap<>();
    private final Set<String> finishesToPush = new TreeSet<>();
    private final Set<String> finishesPushed = new TreeSet<>();
    private final Set<String> finishesInFlight = new TreeSet<>();
    private final Map<String, ChannelPosition> positionsPushed = new HashMap<>();
    private final CommittedPositions progress = new CommittedPositions();

    /** Assigned channels that stopped at the end position of a bounded source (not finished). */
    private final Set<String> stopped = new TreeSet<>();

    private Optional<String> tunnelId;
    private TunnelType tunnelType;
    private TunnelProxy proxy;
    private TunnelSession session;
    private MetaTableClient metaClient;
    private MetaSnapshotWriter meta;
    private TunnelOwner owner;
    private Map<String, ChannelPosition> metaWritten = Map.of();
    private boolean firstAssignmentDone;
    private boolean noMoreSplits;
    private List<ServerChannel> lastListing = List.of();
    private volatile long lastHeartbeatNanos;
    private volatile Set<String> knownIds = Set.of();
    private volatile boolean heartbeatSoon;
    private volatile boolean closing;
    private final AtomicInteger finishPushes = new AtomicInteger();
    private volatile int finishPushesHeartbeated;
    private int finishPushesListed;

    public TablestoreCdcEnumerator(
            SplitEnumeratorContext<ChannelSplit> context,
            TablestoreCdcSourceConfig config,
            TunnelProxyFactory proxyFactory,
            MetaTableClientFactory metaFactory,
            String consumerId,
            EnumeratorState restored) {
        this.context = context;
        this.config = config;
        this.proxyFactory = proxyFactory;
        this.metaFactory = metaFactory;
        this.consumerId = consumerId;
        this.tunnelId = restored.tunnelId();
        for (EnumeratorState.Entry entry : restored.splits().values()) {
            restore(entry);
        }
        // A restored state is a completed checkpoint: its finishes are durable.
        finishesToPush.addAll(finished.keySet());
        // Restored assignments live in the readers' restored state.
        firstAssignmentDone = !assigned.isEmpty();
        refreshKnownIds();
    }

    private void restore(EnumeratorState.Entry entry) {
        ChannelSplit split = entry.split();
        progress.adopt(split.splitId(), split.type(), split.position());
        switch (entry.status()) {
            case FINISHED:
                finished.put(split.splitId(), split.at(ChannelPosition.finished()));
                break;
            case ASSIGNED:
                assigned.put(split.splitId(), split);
                break;
            default:
                unassigned.put(split.splitId(), split);
        }
    }

    @Override
    public void start() {
        proxy =
                TunnelMetricGauges.registerOn(context.metricGroup())
                        .track(proxyFactory.create(config));
        TunnelDescription tunnel = openTunnel();
        tunnelType = tunnel.type();
        connect(tunnel.tunnelId());
        lastHeartbeatNanos = System.nanoTime();
        lastListing = tunnel.channels();
        // Restored finishes the server already has (or no longer lists) need no push.
        finishesToPush.retainAll(
                lastListing.stream()
                        .filter(c -> c.status() != ServerChannelStatus.TERMINATED)
                        .map(ServerChannel::channelId)
                        .collect(Collectors.toSet()));
        LOG.info(
                "Tablestore CDC enumerator connected to tunnel {} ({}) of table {} as client {},"
                        + " owner {}; restored {} unassigned, {} assigned, {} finished channel(s)",
                config.tunnelName(),
                tunnelType,
                config.tableName(),
                session.clientId().clientId(),
                consumerId,
                unassigned.size(),
                assigned.size(),
                finished.size());
        registerMetrics();
        long tick =
                Math.min(
                        config.discoveryInterval().toMillis(),
                        config.heartbeatInterval().toMillis());
        context.callAsync(this::discover, this::onDiscovery, 0L, tick);
        pushFinishes();
    }

    /**
     * Owner lease first, then the predecessor's client shut down, then this job's client (invariant
     * 8). A refused job fails here with the lease conflict's message.
     */
    private void connect(String id) {
        metaClient = metaFactory.create(config);
        MetaStore store = new MetaStore(metaClient);
        store.ensureTable();
        meta = new MetaSnapshotWriter(store);
        owner = TunnelOwner.acquire(store, id, consumerId);
        owner.shutDownPredecessorClient(proxy);
        session =
                TunnelSession.open(proxy, id, config.sessionConfig("flink:" + config.tunnelName()));
        owner.recordClient(session.clientId());
    }

    private TunnelDescription openTunnel() {
        TunnelDescription tunnel;
        try {
            tunnel =
                    config.tunnelCreation()
                            .tunnelType()
                            .map(
                                    type ->
                                            proxy.describeOrCreateTunnel(
                                                    config.tableName(),
                                                    config.tunnelName(),
                                                    type,
                                                    config.startPosition().toTunnelStart()))
                            .orElseGet(
                                    () ->
                                            proxy.describeTunnel(
                                                    config.tableName(), config.tunnelName()));
        } catch (TunnelException e) {
            throw new FlinkRuntimeException(openFailure(e), e);
        }
        requireSameTunnel(tunnel);
        tunnelId = Optional.of(tunnel.tunnelId());
        return tunnel;
    }

    private String openFailure(TunnelException e) {
        if (e.kind() == TunnelException.Kind.NOT_FOUND) {
            return "Tunnel '"
                    + config.tunnelName()
                    + "' of table '"
                    + config.tableName()
                    + "' does not exist: create it in the Tablestore console, or set tunnel.create"
                    + " to stream, base or base-and-stream. ("
                    + e.getMessage()
                    + ")";
        }
        return "Could not open tunnel '" + config.tunnelName() + "': " + e.getMessage();
    }

    private void requireSameTunnel(TunnelDescription tunnel) {
        if (tunnelId.isPresent() && !tunnelId.get().equals(tunnel.tunnelId())) {
            throw new FlinkRuntimeException(
                    "The job's state belongs to tunnel id "
                            + tunnelId.get()
                            + " but tunnel '"
                            + config.tunnelName()
                            + "' now has id "
                            + tunnel.tunnelId()
                            + " (it was deleted and re-created), so the saved positions do not"
                            + " apply. Start the job without its checkpoint/savepoint (or with a"
                            + " new source uid) to read the new tunnel from its start.");
        }
    }

    // ---- discovery (worker thread) ----

    private ChannelDiscovery discover() {
        owner.renewIfDue();
        heartbeatIfDue();
        session.checkHealthy();
        int covered = finishPushesHeartbeated;
        TunnelDescription tunnel = proxy.describeTunnel(config.tableName(), config.tunnelName());
        Set<String> open = session.openChannelIds();
        Set<String> known = knownIds;
        Map<String, ChannelSplit> candidates = new HashMap<>();
        for (ServerChannel channel : tunnel.channels()) {
            String id = channel.channelId();
            if (open.contains(id) && !known.contains(id)) {
                ChannelPosition start = session.serverCheckpoint(id).position();
                candidates.put(id, new ChannelSplit(id, channel.type(), start));
            } else if (channel.isOpen() && !open.contains(id) && !known.contains(id)) {
                // Opened on the server (e.g. a child) but not yet assigned to this client: the
                // next heartbeat picks it up, without waiting a whole heartbeat interval.
                heartbeatSoon = true;
            }
        }
        return new ChannelDiscovery(tunnel.channels(), open, candidates, covered);
    }

    private void heartbeatIfDue() {
        long now = System.nanoTime();
        long since = now - lastHeartbeatNanos;
        boolean early = heartbeatSoon && since >= MIN_EXTRA_HEARTBEAT_GAP.toNanos();
        if (early || since >= config.heartbeatInterval().toNanos()) {
            heartbeatSoon = false;
            lastHeartbeatNanos = now;
            int pushes = finishPushes.get();
            session.heartbeatOnce();
            finishPushesHeartbeated = pushes;
        }
    }

    // ---- coordinator thread ----

    private void onDiscovery(ChannelDiscovery discovery, Throwable error) {
        if (closing) {
            return; // a round that raced with close(); its session is gone
        }
        if (error != null) {
            throw new FlinkRuntimeException(
                    "Discovering the channels of tunnel '"
                            + config.tunnelName()
                            + "' failed: "
                            + error.getMessage(),
                    error);
        }
        lastListing = discovery.listing();
        finishPushesListed = discovery.finishPushesCovered();
        adopt(discovery);
        assignPending();
        signalNoMoreSplitsIfComplete();
    }

    private void adopt(ChannelDiscovery discovery) {
        boolean baseUnfinished = baseUnfinished(discovery.listing(), discovery.candidates());
        for (ChannelSplit candidate : new TreeMap<>(discovery.candidates()).values()) {
            String id = candidate.splitId();
            if (isKnown(id)) {
                continue;
            }
            if (candidate.isFinished()) {
                finished.put(id, candidate); // finished before this job saw it
                progress.adopt(id, candidate.type(), candidate.position());
            } else if (baseUnfinished && candidate.type() == ChannelType.STREAM) {
                LOG.debug("Holding stream channel {}: base data is not finished yet", id);
            } else {
                LOG.info("Discovered channel {} at {}", id, candidate.position());
                unassigned.put(id, candidate);
                progress.adopt(id, candidate.type(), candidate.position());
            }
        }
        refreshKnownIds();
    }

    /** Whether any base-data channel (listed, known or just discovered) is still unfinished. */
    private boolean baseUnfinished(
            List<ServerChannel> listing, Map<String, ChannelSplit> candidates) {
        if (tunnelType != TunnelType.BASE_AND_STREAM) {
            return false;
        }
        for (ServerChannel channel : listing) {
            if (channel.type() == ChannelType.BASE_DATA
                    && channel.status() != ServerChannelStatus.TERMINATED
                    && !finished.containsKey(channel.channelId())) {
                ChannelSplit candidate = candidates.get(channel.channelId());
                if (candidate == null || !candidate.isFinished()) {
                    return true;
                }
            }
        }
        return activeSplits().stream().anyMatch(s -> s.type() == ChannelType.BASE_DATA);
    }

    private void assignPending() {
        Set<Integer> readers = context.registeredReaders().keySet();
        if (unassigned.isEmpty() || readers.isEmpty()) {
            return;
        }
        if (!firstAssignmentDone && readers.size() < context.currentParallelism()) {
            return; // wait for every reader, so the first assignment is balanced
        }
        Map<Integer, List<ChannelSplit>> plan = new HashMap<>();
        Map<Integer, Integer> load = currentLoad(readers);
        for (ChannelSplit split : unassigned.values()) {
            int subtask = leastLoaded(load);
            load.merge(subtask, 1, Integer::sum);
            plan.computeIfAbsent(subtask, k -> new ArrayList<>()).add(split);
        }
        plan.forEach((subtask, splits) -> splits.forEach(s -> markAssigned(s, subtask)));
        context.assignSplits(new SplitsAssignment<>(plan));
        firstAssignmentDone = true;
        LOG.info("Assigned channels {}", plan);
    }

    private void markAssigned(ChannelSplit split, int subtask) {
        unassigned.remove(split.splitId());
        assigned.put(split.splitId(), split);
        owners.put(split.splitId(), subtask);
    }

    private Map<Integer, Integer> currentLoad(Set<Integer> readers) {
        Map<Integer, Integer> load = new TreeMap<>();
        readers.forEach(r -> load.put(r, 0));
        owners.values().forEach(r -> load.computeIfPresent(r, (k, n) -> n + 1));
        return load;
    }

    private static int leastLoaded(Map<Integer, Integer> load) {
        int best = -1;
        int bestLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) {
            if (e.getValue() < bestLoad) {
                best = e.getKey();
                bestLoad = e.getValue();
            }
        }
        return best;
    }

    /**
     * Tells the readers there are no more splits once the source is complete: a BaseData tunnel
     * when every channel it lists is finished here; a source with an end position when every
     * channel has stopped there or finished (see {@link #stopAtComplete()}). Stream tunnels without
     * an end never end.
     */
    private void signalNoMoreSplitsIfComplete() {
        if (noMoreSplits || !(baseDataComplete() || stopAtComplete())) {
            return;
        }
        noMoreSplits = true;
        LOG.info(
                "All channels of tunnel {} finished or stopped at the end position",
                config.tunnelName());
        context.registeredReaders().keySet().forEach(context::signalNoMoreSplits);
    }

    private boolean baseDataComplete() {
        return tunnelType == TunnelType.BASE_DATA
                && !finished.isEmpty()
                && unassigned.isEmpty()
                && assigned.isEmpty()
                && lastListing.stream().allMatch(c -> finished.containsKey(c.channelId()));
    }

    /**
     * With an end position: every channel read here stopped or finished; every finish reached the
     * server and a heartbeat and listing followed it, so the children those finishes opened (which
     * may hold changes from before the end) are known; and the listing shows no other channel that
     * could still be read: only known ones, {@code WAIT} children (of stopped parents: they open
     * only after this job's end) and {@code TERMINATED} ones.
     */
    private boolean stopAtComplete() {
        if (config.stopAt().isEmpty() || !unassigned.isEmpty() || lastListing.isEmpty()) {
            return false;
        }
        boolean readersDone = stopped.containsAll(assigned.keySet());
        boolean finishesOnServer =
                finished.keySet().stream().allMatch(this::finishKnownToServer)
                        && finishPushesListed == finishPushes.get();
        return readersDone
                && finishesOnServer
                && lastListing.stream()
                        .allMatch(
                                c ->
                                        isKnown(c.channelId())
                                                || c.status() == ServerChannelStatus.WAIT
                                                || c.status() == ServerChannelStatus.TERMINATED);
    }

    private boolean finishKnownToServer(String channelId) {
        return finishesPushed.contains(channelId)
                || lastListing.stream()
                        .noneMatch(
                                c ->
                                        c.channelId().equals(channelId)
                                                && c.status() != ServerChannelStatus.TERMINATED);
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Splits are pushed on discovery; readers never ask.
    }

    @Override
    public void addSplitsBack(List<ChannelSplit> splits, int subtaskId) {
        for (ChannelSplit split : splits) {
            String id = split.splitId();
            owners.remove(id);
            assigned.remove(id);
            stopped.remove(id); // read again from its position; it stops there again
            if (!finished.containsKey(id)) {
                unassigned.put(id, split);
            }
        }
        LOG.info("Reader {} gave back channels {}", subtaskId, splits);
        refreshKnownIds();
        assignPending();
    }

    @Override
    public void addReader(int subtaskId) {
        if (session != null) {
            context.sendEventToSourceReader(subtaskId, new TunnelClientEvent(session.clientId()));
        }
        assignPending();
        if (noMoreSplits) {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ChannelsFinishedEvent) {
            onFinished(subtaskId, ((ChannelsFinishedEvent) event).channelIds());
        } else if (event instanceof ChannelsStoppedEvent) {
            onStopped(subtaskId, ((ChannelsStoppedEvent) event).channelIds());
        } else if (event instanceof CommittedPositionsEvent) {
            onCommittedPositions((CommittedPositionsEvent) event);
        } else {
            LOG.warn("Ignoring unknown source event {} from reader {}", event, subtaskId);
        }
    }

    private void onFinished(int subtaskId, Collection<String> channelIds) {
        for (String id : channelIds) {
            if (finished.containsKey(id)) {
                continue; // a repeat (re-report after restore); idempotent
            }
            ChannelSplit split = assigned.remove(id);
            if (split == null) {
                split = unassigned.remove(id);
            }
            if (split == null) {
                LOG.warn(
                        "Reader {} reports unknown channel {} finished; keeping it as a"
                                + " tombstone",
                        subtaskId,
                        id);
                split = new ChannelSplit(id, ChannelType.STREAM, ChannelPosition.finished());
            }
            owners.remove(id);
            finished.put(id, split.at(ChannelPosition.finished()));
            LOG.info("Channel {} finished (reader {})", id, subtaskId);
        }
        refreshKnownIds();
        assignPending();
        signalNoMoreSplitsIfComplete();
    }

    private void onStopped(int subtaskId, Collection<String> channelIds) {
        for (String id : channelIds) {
            if (assigned.containsKey(id) && stopped.add(id)) {
                LOG.info("Channel {} stopped at the end position (reader {})", id, subtaskId);
            }
        }
        signalNoMoreSplitsIfComplete();
    }

    private void onCommittedPositions(CommittedPositionsEvent event) {
        Map<String, ChannelPosition> toPush = new TreeMap<>();
        for (ChannelSplit split : event.positions()) {
            ChannelPosition position = split.position();
            progress.commit(split.splitId(), position);
            if (position.isFinished()) {
                if (!finishesPushed.contains(split.splitId())) {
                    finishesToPush.add(split.splitId());
                }
            } else if (!finished.containsKey(split.splitId())
                    && !position.equals(positionsPushed.get(split.splitId()))) {
                // A finished channel's server checkpoint is "finished"; an older report must not
                // try to move it back.
                toPush.put(split.splitId(), position);
            }
        }
        pushPositions(toPush);
        pushFinishes();
    }

    @Override
    public EnumeratorState snapshotState(long checkpointId) {
        Set<String> unpushed = new TreeSet<>(finished.keySet());
        unpushed.removeAll(finishesPushed);
        if (!unpushed.isEmpty()) {
            finishesBySnapshot.put(checkpointId, unpushed);
        }
        Map<String, EnumeratorState.Entry> splits = new TreeMap<>();
        unassigned.values().forEach(s -> put(splits, s, SplitStatus.UNASSIGNED));
        assigned.values().forEach(s -> put(splits, s, SplitStatus.ASSIGNED));
        finished.values().forEach(s -> put(splits, s, SplitStatus.FINISHED));
        return new EnumeratorState(tunnelId, Optional.of(consumerId), splits);
    }

    private static void put(
            Map<String, EnumeratorState.Entry> splits, ChannelSplit split, SplitStatus status) {
        splits.put(split.splitId(), new EnumeratorState.Entry(split, status));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        SortedMap<Long, Set<String>> durable = finishesBySnapshot.headMap(checkpointId, true);
        durable.values().forEach(finishesToPush::addAll);
        durable.clear();
        finishesToPush.forEach(id -> progress.commit(id, ChannelPosition.finished()));
        pushFinishes();
        writeMeta(checkpointId);
    }

    /**
     * Writes the committed positions to the meta table under a fresh batch token, unless nothing
     * changed since the last write (an idle stream adds no rows, invariant 7). Readers report the
     * positions of checkpoint N right after it completes, so the snapshot of N holds, per channel,
     * the newest position known committed: N's or an earlier checkpoint's.
     */
    private void writeMeta(long checkpointId) {
        Map<String, ChannelPosition> positions = progress.positions();
        if (meta == null || positions.isEmpty() || positions.equals(metaWritten)) {
            return;
        }
        BatchSnapshot snapshot = progress.snapshot(tunnelId.orElseThrow(), BatchToken.random());
        Collection<ChannelCheckpoint> adoptions = progress.adoptions().values();
        context.callAsync(
                () -> {
                    meta.write(snapshot, checkpointId, adoptions);
                    return positions;
                },
                (written, error) -> {
                    if (error != null) {
                        LOG.warn(
                                "Could not write checkpoint {} to meta table {}; the next"
                                        + " checkpoint writes newer positions: {}",
                                checkpointId,
                                metaClient.tableName(),
                                error.getMessage());
                    } else {
                        metaWritten = written;
                    }
                });
    }

    /** Pushes the finishes known durable, then heartbeats so the server opens children soon. */
    private void pushFinishes() {
        finishesToPush.removeAll(finishesPushed);
        finishesToPush.removeAll(finishesInFlight);
        if (finishesToPush.isEmpty() || session == null) {
            return;
        }
        List<String> batch = new ArrayList<>(finishesToPush);
        finishesToPush.clear();
        finishesInFlight.addAll(batch);
        context.callAsync(
                () -> {
                    batch.forEach(id -> session.checkpoint(id, ChannelPosition.finished()));
                    finishPushes.incrementAndGet();
                    heartbeatSoon = true;
                    return batch;
                },
                (pushed, error) -> onFinishesPushed(batch, error));
    }

    private void onFinishesPushed(List<String> batch, Throwable error) {
        finishesInFlight.removeAll(batch);
        if (error != null) {
            finishesToPush.addAll(batch); // pushed again after the next checkpoint
            LOG.warn(
                    "Could not push finished channels {} to the tunnel server; retrying after the"
                            + " next checkpoint: {}",
                    batch,
                    error.getMessage());
            return;
        }
        finishesPushed.addAll(batch);
        LOG.info("Pushed finished channels {} to the tunnel server", batch);
        signalNoMoreSplitsIfComplete();
    }

    private void pushPositions(Map<String, ChannelPosition> positions) {
        if (positions.isEmpty() || session == null) {
            return;
        }
        context.callAsync(
                () -> {
                    positions.forEach(session::checkpoint);
                    return positions;
                },
                (pushed, error) -> {
                    if (error != null) {
                        LOG.warn(
                                "Could not push committed positions to the tunnel server; the"
                                        + " next checkpoint pushes newer ones: {}",
                                error.getMessage());
                    } else {
                        positionsPushed.putAll(pushed);
                    }
                });
    }

    /** Makes the next discovery round renew the owner lease (tests). */
    @VisibleForTesting
    void requestLeaseRenewal() {
        owner.renewNextTime();
    }

    /** Makes the next discovery round heartbeat first (tests; and after pushing finishes). */
    @VisibleForTesting
    void requestHeartbeat() {
        heartbeatSoon = true;
        lastHeartbeatNanos = System.nanoTime() - MIN_EXTRA_HEARTBEAT_GAP.toNanos();
    }

    private boolean isKnown(String id) {
        return unassigned.containsKey(id) || assigned.containsKey(id) || finished.containsKey(id);
    }

    private List<ChannelSplit> activeSplits() {
        List<ChannelSplit> active = new ArrayList<>(unassigned.values());
        active.addAll(assigned.values());
        return active;
    }

    private void refreshKnownIds() {
        Set<String> ids = new TreeSet<>(unassigned.keySet());
        ids.addAll(assigned.keySet());
        ids.addAll(finished.keySet());
        knownIds = Set.copyOf(ids);
    }

    private void registerMetrics() {
        context.metricGroup().gauge("channelsUnassigned", unassigned::size);
        context.metricGroup().gauge("channelsAssigned", assigned::size);
        context.metricGroup().gauge("channelsFinished", finished::size);
        context.metricGroup()
                .gauge(
                        "channelsWaitingOnServer",
                        () ->
                                lastListing.stream()
                                        .filter(c -> c.status() == ServerChannelStatus.WAIT)
                                        .count());
    }

    @Override
    public void close() {
        closing = true;
        if (session != null) {
            session.close();
        }
        if (owner != null) {
            owner.release(); // after the client is gone: the next owner may start at once
        }
        if (proxy != null) {
            proxy.close();
        }
        if (metaClient != null) {
            metaClient.close();
        }
    }
}
