package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.emulator.server.EmulatorError;
import io.tablestorecdc.emulator.table.RowChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel service's state: per table its partitions and their change logs, and the tunnels with
 * their channels and clients. Every method holds this object's lock, so concurrent SDK calls see
 * one consistent state; callers must not call into the table layer while holding it (the table
 * layer calls {@link #onRowChange} under its own lock).
 */
final class Tunnels {

    private static final Logger LOG = LoggerFactory.getLogger(Tunnels.class);
    private static final long DEFAULT_CLIENT_TIMEOUT_MILLIS = 300_000L;

    private final String instanceName;
    private final LongSupplier clockMillis;
    private final Map<String, TablePartitions> tables = new HashMap<>();
    private final Map<String, Tunnel> tunnels = new LinkedHashMap<>();
    private final Map<String, Integer> incarnations = new HashMap<>();
    private final Map<String, Deque<TunnelJournal.Event>> toReplay = new HashMap<>();
    private Optional<TunnelJournal> journal = Optional.empty();

    Tunnels(String instanceName, LongSupplier clockMillis) {
        this.instanceName = instanceName;
        this.clockMillis = clockMillis;
    }

    // ---- durability --------------------------------------------------------------------------

    /**
     * Makes tunnel state durable in the journal and queues the events it already holds. They are
     * replayed interleaved with the table journal's writes (each before the first write of its
     * table committed after it) and, at the latest, before any tunnel call is served.
     */
    synchronized void recoverFrom(TunnelJournal.Opened opened) {
        for (TunnelJournal.Event e : opened.events()) {
            toReplay.computeIfAbsent(e.position().table(), k -> new ArrayDeque<>()).add(e);
        }
        journal = Optional.of(opened.journal());
    }

    synchronized void closeJournal() throws IOException {
        if (journal.isPresent()) {
            journal.get().close();
            journal = Optional.empty();
        }
    }

    private void journal(TunnelJournal.Event event) {
        if (journal.isPresent()) {
            try {
                journal.get().append(event);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Cannot append to the tunnel journal; check the data directory's disk", e);
            }
        }
    }

    private TunnelJournal.Position position(String table) {
        return new TunnelJournal.Position(
                table, incarnations.getOrDefault(table, 0), partitions(table).lastCommitMicros());
    }

    /** Replays the table's journaled events that happened before a write at {@code micros}. */
    private void replayBefore(String table, long micros) {
        Deque<TunnelJournal.Event> queue = toReplay.getOrDefault(table, new ArrayDeque<>());
        int incarnation = incarnations.getOrDefault(table, 0);
        while (!queue.isEmpty() && isBefore(queue.peek().position(), incarnation, micros)) {
            replay(queue.poll());
        }
    }

    private static boolean isBefore(TunnelJournal.Position p, int incarnation, long micros) {
        return p.incarnation() < incarnation
                || (p.incarnation() == incarnation && p.afterMicros() < micros);
    }

    /** Replays every journaled event still queued: the table journal has been replayed. */
    private void recovered() {
        if (!toReplay.isEmpty()) {
            toReplay.values().forEach(queue -> queue.forEach(this::replay));
            toReplay.clear();
        }
    }

    private void replay(TunnelJournal.Event e) {
        try {
            if (e instanceof TunnelJournal.Created c) {
                replayCreated(c);
            } else if (e instanceof TunnelJournal.Deleted d) {
                tunnels.remove(d.tunnelId());
            } else if (e instanceof TunnelJournal.Expired x) {
                Optional.ofNullable(tunnels.get(x.tunnelId())).ifPresent(Tunnel::expire);
            } else if (e instanceof TunnelJournal.Split split) {
                applySplit(split.position().table(), split.at(), split.nanos());
            } else if (e instanceof TunnelJournal.Merged m) {
                applyMerge(m.position().table(), m.at(), m.nanos());
            } else if (e instanceof TunnelJournal.Checkpointed c) {
                replayedChannel(c.tunnelId(), c.channelId())
                        .ifPresent(
                                ch ->
                                        ch.recordCheckpoint(
                                                c.value(),
                                                c.sequence(),
                                                ChannelToken.decode(c.value())));
            } else if (e instanceof TunnelJournal.Finished f) {
                replayedChannel(f.tunnelId(), f.channelId()).ifPresent(TunnelChannel::markFinished);
            }
        } catch (RuntimeException ex) {
            LOG.warn("Skipping a tunnel journal event that no longer applies: {}", e, ex);
        }
    }

    private Optional<TunnelChannel> replayedChannel(String tunnelId, String channelId) {
        return Optional.ofNullable(tunnels.get(tunnelId)).flatMap(t -> t.channel(channelId));
    }

    private void replayCreated(TunnelJournal.Created c) {
        TunnelServiceApi.Tunnel d = c.definition();
        Tunnel t =
                new Tunnel(
                        c.tunnelId(),
                        d.getTunnelName(),
                        d.getTableName(),
                        d.getTunnelType(),
                        d.hasStreamTunnelConfig()
                                ? Optional.of(d.getStreamTunnelConfig())
                                : Optional.empty(),
                        c.createdNanos());
        TablePartitions parts = partitions(t.table());
        c.streamStarts()
                .forEach(
                        (id, start) ->
                                parts.byId(id)
                                        .ifPresent(p -> t.addChannel(streamChannel(p, start))));
        addBaseChannels(t, c.baseChannels());
        t.markInitialized();
        tunnels.put(t.id(), t);
    }

    private static void addBaseChannels(Tunnel t, List<TunnelJournal.BaseChannel> bases) {
        ChannelToken start = ChannelToken.base(0, t.createdNanos());
        for (TunnelJournal.BaseChannel b : bases) {
            t.addBaseChannel(
                    new TunnelChannel(b.channelId(), ChannelKind.BASE, b.partitionId(), 0, start),
                    b.rows());
        }
    }

    // ---- table events ------------------------------------------------------------------------

    synchronized void onRowChange(RowChange change) {
        replayBefore(change.table(), change.commitTimeMicros());
        partitions(change.table()).append(change);
    }

    /** A table created (again) starts a new life: one partition and no tunnels. */
    synchronized void onTableCreated(String table) {
        forget(table);
        incarnations.merge(table, 1, Integer::sum);
    }

    synchronized void onTableDeleted(String table) {
        // Everything journaled during the table's life happened before its deletion.
        replayBefore(table, Long.MAX_VALUE);
        forget(table);
    }

    private void forget(String table) {
        tables.remove(table);
        tunnels.values().removeIf(t -> t.table().equals(table));
    }

    private TablePartitions partitions(String table) {
        // Created lazily: tables that existed before this service was registered get one
        // partition covering the whole key space the first time they are needed.
        return tables.computeIfAbsent(table, TablePartitions::new);
    }

    // ---- partitions --------------------------------------------------------------------------

    synchronized List<PartitionView> partitionViews(String table) {
        recovered();
        List<PartitionView> views = new ArrayList<>();
        for (Partition p : partitions(table).all()) {
            views.add(new PartitionView(p.id(), p.range(), p.isActive(), p.parentIds()));
        }
        return views;
    }

    synchronized List<String> split(String table, PrimaryKey at) {
        recovered();
        long now = nowNanos();
        List<String> children = applySplit(table, at, now);
        journal(new TunnelJournal.Split(position(table), at, now));
        return children;
    }

    synchronized String merge(String table, PrimaryKey at) {
        recovered();
        long now = nowNanos();
        String child = applyMerge(table, at, now);
        journal(new TunnelJournal.Merged(position(table), at, now));
        return child;
    }

    private List<String> applySplit(String table, PrimaryKey at, long nanos) {
        List<Partition> children = partitions(table).split(at, nanos);
        children.forEach(child -> addStreamChannels(table, child));
        return children.stream().map(Partition::id).toList();
    }

    private String applyMerge(String table, PrimaryKey at, long nanos) {
        Partition child = partitions(table).merge(at, nanos);
        addStreamChannels(table, child);
        return child.id();
    }

    private void addStreamChannels(String table, Partition child) {
        for (Tunnel t : tunnels.values()) {
            if (t.table().equals(table) && t.hasStream()) {
                t.addChannel(streamChannel(child, 0));
            }
        }
    }

    // ---- tunnel lifecycle --------------------------------------------------------------------

    /**
     * Registers a new tunnel in stage InitBaseDataAndStreamShard with its stream channels fixed at
     * this instant; the caller then snapshots the returned base ranges outside this lock and
     * completes the tunnel with {@link #completeTunnel}.
     */
    synchronized PendingTunnel beginTunnel(TunnelServiceApi.Tunnel definition)
            throws EmulatorError {
        recovered();
        String table = definition.getTableName();
        for (Tunnel t : tunnels.values()) {
            if (t.table().equals(table) && t.name().equals(definition.getTunnelName())) {
                throw TunnelErrors.tunnelExists(table, definition.getTunnelName());
            }
        }
        Optional<TunnelServiceApi.StreamTunnelConfig> config = streamConfig(definition);
        Tunnel tunnel =
                new Tunnel(
                        UUID.randomUUID().toString(),
                        definition.getTunnelName(),
                        table,
                        definition.getTunnelType(),
                        config,
                        nowNanos());
        if (tunnel.hasStream()) {
            addInitialStreamChannels(tunnel);
        }
        tunnels.put(tunnel.id(), tunnel);
        return new PendingTunnel(tunnel.id(), table, baseChannels(tunnel));
    }

    private static Optional<TunnelServiceApi.StreamTunnelConfig> streamConfig(
            TunnelServiceApi.Tunnel definition) throws EmulatorError {
        if (!definition.hasStreamTunnelConfig()) {
            return Optional.empty();
        }
        TunnelServiceApi.StreamTunnelConfig config = definition.getStreamTunnelConfig();
        if (config.hasStartOffset()
                && config.hasEndOffset()
                && config.getEndOffset() <= config.getStartOffset()) {
            throw TunnelErrors.parameterInvalid(
                    "StreamTunnelConfig endOffset "
                            + config.getEndOffset()
                            + " must be after startOffset "
                            + config.getStartOffset());
        }
        return Optional.of(config);
    }

    private void addInitialStreamChannels(Tunnel tunnel) {
        for (Partition p : partitions(tunnel.table()).all()) {
            Optional<Integer> start = streamStart(tunnel, p);
            start.ifPresent(index -> tunnel.addChannel(streamChannel(p, index)));
        }
    }

    /**
     * Where a new tunnel's stream channel for a partition starts: LATEST (the default) at the log's
     * current end for active partitions; EARLIEST at the log's start; a start offset at the first
     * record committed at or after it. Partitions that ended before the start get no channel (their
     * children are roots for this tunnel).
     */
    private Optional<Integer> streamStart(Tunnel tunnel, Partition p) {
        Optional<TunnelServiceApi.StreamTunnelConfig> config = tunnel.streamConfig();
        if (config.isPresent() && config.get().hasStartOffset()) {
            long start = config.get().getStartOffset();
            boolean endedBefore = p.endedAtNanos().map(e -> e <= start).orElse(false);
            return endedBefore ? Optional.empty() : Optional.of(p.firstIndexAtOrAfter(start));
        }
        boolean earliest =
                config.isPresent()
                        && config.get().getFlag() == TunnelServiceApi.StartOffsetFlag.EARLIEST;
        if (earliest) {
            return Optional.of(0);
        }
        return p.isActive() ? Optional.of(p.logSize()) : Optional.empty();
    }

    private TunnelChannel streamChannel(Partition p, int startIndex) {
        long time = startIndex > 0 ? p.entry(startIndex - 1).timeNanos() : nowNanos();
        ChannelToken start = ChannelToken.stream(p.id(), startIndex, time);
        return new TunnelChannel(p.id(), ChannelKind.STREAM, p.id(), startIndex, start);
    }

    private List<PendingTunnel.BaseChannelSpec> baseChannels(Tunnel tunnel) {
        List<PendingTunnel.BaseChannelSpec> specs = new ArrayList<>();
        if (tunnel.hasBase()) {
            for (Partition p : partitions(tunnel.table()).active()) {
                specs.add(
                        new PendingTunnel.BaseChannelSpec("BaseData_" + p.id(), p.id(), p.range()));
            }
        }
        return specs;
    }

    /** Installs the base-data snapshots (by channel id) and opens the tunnel for processing. */
    synchronized void completeTunnel(PendingTunnel pending, Map<String, List<Row>> baseRows) {
        Tunnel tunnel = tunnels.get(pending.tunnelId());
        if (tunnel == null) {
            return;
        }
        List<TunnelJournal.BaseChannel> bases = new ArrayList<>();
        for (PendingTunnel.BaseChannelSpec spec : pending.baseChannels()) {
            bases.add(
                    new TunnelJournal.BaseChannel(
                            spec.channelId(),
                            spec.partitionId(),
                            baseRows.getOrDefault(spec.channelId(), List.of())));
        }
        addBaseChannels(tunnel, bases);
        tunnel.markInitialized();
        journal(
                new TunnelJournal.Created(
                        position(tunnel.table()),
                        tunnel.id(),
                        tunnel.createdNanos(),
                        tunnel.definition(),
                        streamStarts(tunnel),
                        bases));
    }

    private static Map<String, Integer> streamStarts(Tunnel tunnel) {
        Map<String, Integer> starts = new LinkedHashMap<>();
        for (TunnelChannel c : tunnel.channels()) {
            if (c.kind() == ChannelKind.STREAM) {
                starts.put(c.id(), c.startOffset());
            }
        }
        return starts;
    }

    synchronized void abandonTunnel(String tunnelId) {
        tunnels.remove(tunnelId);
    }

    synchronized List<TunnelServiceApi.TunnelInfo> list(Optional<String> table) {
        recovered();
        List<TunnelServiceApi.TunnelInfo> infos = new ArrayList<>();
        for (Tunnel t : tunnels.values()) {
            if (table.isEmpty() || table.get().equals(t.table())) {
                infos.add(info(t));
            }
        }
        return infos;
    }

    synchronized TunnelServiceApi.DescribeTunnelResponse describe(String table, String name)
            throws EmulatorError {
        Tunnel t = byName(table, name);
        expireOverdueClients(t);
        TunnelServiceApi.DescribeTunnelResponse.Builder out =
                TunnelServiceApi.DescribeTunnelResponse.newBuilder().setTunnel(info(t));
        long rpo = Long.MAX_VALUE;
        for (TunnelChannel c : t.channels()) {
            out.addChannels(channelInfo(t, c));
            if (!c.isFinished()) {
                rpo = Math.min(rpo, c.consumePointNanos());
            }
        }
        return out.setTunnelRpo(rpo == Long.MAX_VALUE ? 0 : rpo).build();
    }

    synchronized void delete(String table, String name) throws EmulatorError {
        Tunnel t = byName(table, name);
        tunnels.remove(t.id());
        journal(new TunnelJournal.Deleted(position(table), t.id()));
    }

    private Tunnel byName(String table, String name) throws EmulatorError {
        recovered();
        for (Tunnel t : tunnels.values()) {
            if (t.table().equals(table) && t.name().equals(name)) {
                return t;
            }
        }
        throw TunnelErrors.parameterInvalid(
                "Tunnel "
                        + name
                        + " does not exist on table "
                        + table
                        + "; list the table's tunnels or create it first");
    }

    private TunnelServiceApi.TunnelInfo info(Tunnel t) {
        TunnelServiceApi.TunnelInfo.Builder info =
                TunnelServiceApi.TunnelInfo.newBuilder()
                        .setTunnelId(t.id())
                        .setTunnelType(t.type().name())
                        .setTableName(t.table())
                        .setInstanceName(instanceName)
                        .setStreamId("stream-" + t.table())
                        .setStage(t.stage().name())
                        .setExpired(t.isExpired())
                        .setTunnelName(t.name())
                        .setPublic(false)
                        .setCreateTime(t.createdNanos());
        t.streamConfig().ifPresent(info::setStreamTunnelConfig);
        return info.build();
    }

    private TunnelServiceApi.ChannelInfo channelInfo(Tunnel t, TunnelChannel c) {
        TunnelServiceApi.ChannelInfo.Builder info =
                TunnelServiceApi.ChannelInfo.newBuilder()
                        .setChannelId(c.id())
                        .setChannelType(c.kind().wireName())
                        .setChannelStatus(status(t, c))
                        .setChannelRpo(c.consumePointNanos())
                        .setChannelCount(c.consumedCount());
        c.owner().ifPresent(info::setClientId);
        return info.build();
    }

    /**
     * The DescribeTunnel status: TERMINATED when finished; OPEN / CLOSING while a client holds it;
     * CLOSE when a client gave it back; WAIT before it was ever handed out, which includes every
     * channel the gate still holds.
     */
    private String status(Tunnel t, TunnelChannel c) {
        if (c.isFinished()) {
            return "TERMINATED";
        }
        if (c.owner().isPresent()) {
            return c.isClosing() ? "CLOSING" : "OPEN";
        }
        return c.wasAssigned() && isReady(t, c) ? "CLOSE" : "WAIT";
    }

    // ---- gate --------------------------------------------------------------------------------

    /**
     * May the channel be handed out? Base channels always; a stream channel of a BaseAndStream
     * tunnel only once every base channel is finished; a child stream channel only once every
     * parent channel of this tunnel is finished and the parents' ranges tile the child's range. A
     * parent this tunnel has no channel for ended before the tunnel's start and counts as done.
     */
    boolean isReady(Tunnel t, TunnelChannel c) {
        if (!t.isInitialized() || c.kind() == ChannelKind.BASE) {
            return t.isInitialized();
        }
        if (t.hasBase() && !t.allBaseFinished()) {
            return false;
        }
        TablePartitions parts = partitions(t.table());
        Optional<Partition> partition = parts.byId(c.partitionId());
        if (partition.isEmpty() || partition.get().parentIds().isEmpty()) {
            return partition.isPresent();
        }
        List<KeyRange> parentRanges = new ArrayList<>();
        for (String parentId : partition.get().parentIds()) {
            Optional<TunnelChannel> parent = t.channel(parentId);
            if (parent.isPresent() && !parent.get().isFinished()) {
                return false;
            }
            parts.byId(parentId).ifPresent(p -> parentRanges.add(p.range()));
        }
        return KeyRange.tiles(parentRanges, partition.get().range());
    }

    // ---- clients and heartbeats --------------------------------------------------------------

    synchronized String connect(String tunnelId, long timeoutSeconds) throws EmulatorError {
        Tunnel t = live(tunnelId);
        String clientId = UUID.randomUUID().toString();
        long timeout = timeoutSeconds > 0 ? timeoutSeconds * 1000L : DEFAULT_CLIENT_TIMEOUT_MILLIS;
        t.addClient(new ClientSession(clientId, timeout, clockMillis.getAsLong()));
        return clientId;
    }

    synchronized void shutdown(String tunnelId, String clientId) throws EmulatorError {
        Tunnel t = live(tunnelId);
        session(t, clientId);
        t.removeClient(clientId);
    }

    synchronized int expireClients(String tunnelIdOrName) throws EmulatorError {
        return find(tunnelIdOrName).expireClients(clockMillis.getAsLong(), true);
    }

    synchronized void expireTunnel(String tunnelIdOrName) throws EmulatorError {
        Tunnel t = find(tunnelIdOrName);
        t.expire();
        journal(new TunnelJournal.Expired(position(t.table()), t.id()));
    }

    synchronized List<TunnelServiceApi.Channel> heartbeat(
            String tunnelId, String clientId, List<TunnelServiceApi.Channel> reported)
            throws EmulatorError {
        Tunnel t = live(tunnelId);
        ClientSession client = session(t, clientId);
        client.touch(clockMillis.getAsLong());
        Set<String> released = applyReports(t, clientId, reported);
        ChannelScheduler scheduler = new ChannelScheduler(t, c -> isReady(t, c));
        scheduler.assign(clientId, released);
        scheduler.rebalance(clientId);
        return scheduler.held(clientId);
    }

    /**
     * Applies what the client says about its channels. Reports for channels it does not hold, or
     * with a version below the server's, are stale and ignored. CLOSE gives a channel back;
     * TERMINATED also marks it finished.
     *
     * @return the channels given back now, which are not handed out again in this same response
     */
    private Set<String> applyReports(
            Tunnel t, String clientId, List<TunnelServiceApi.Channel> reported) {
        Set<String> released = new HashSet<>();
        for (TunnelServiceApi.Channel report : reported) {
            Optional<TunnelChannel> channel = t.channel(report.getChannelId());
            if (channel.isEmpty()
                    || !channel.get().isOwnedBy(clientId)
                    || report.getVersion() < channel.get().version()) {
                continue;
            }
            TunnelChannel c = channel.get();
            TunnelServiceApi.ChannelStatus status = report.getStatus();
            if (status == TunnelServiceApi.ChannelStatus.TERMINATED && !c.isFinished()) {
                c.markFinished();
                journal(new TunnelJournal.Finished(position(t.table()), t.id(), c.id()));
            }
            if (status == TunnelServiceApi.ChannelStatus.CLOSE
                    || status == TunnelServiceApi.ChannelStatus.TERMINATED) {
                c.release(report.getVersion());
                released.add(c.id());
            }
        }
        return released;
    }

    // ---- checkpoints -------------------------------------------------------------------------

    synchronized TunnelServiceApi.GetCheckpointResponse getCheckpoint(
            String tunnelId, String clientId, String channelId) throws EmulatorError {
        TunnelChannel c = channelFor(tunnelId, clientId, channelId);
        return TunnelServiceApi.GetCheckpointResponse.newBuilder()
                .setCheckpoint(c.checkpoint())
                .setSequenceNumber(c.sequenceNumber())
                .build();
    }

    synchronized void checkpoint(
            String tunnelId, String clientId, String channelId, String value, long sequence)
            throws EmulatorError {
        TunnelChannel c = channelFor(tunnelId, clientId, channelId);
        if (sequence != c.sequenceNumber() + 1) {
            throw TunnelErrors.sequenceNotMatch(channelId, c.sequenceNumber() + 1, sequence);
        }
        Optional<ChannelToken> position = Optional.empty();
        if (!ChannelToken.FINISHED.equals(value)) {
            position = Optional.of(positionIn(live(tunnelId), c, value));
        }
        c.recordCheckpoint(value, sequence, position);
        journal(
                new TunnelJournal.Checkpointed(
                        position(live(tunnelId).table()), tunnelId, channelId, value, sequence));
    }

    // ---- reads -------------------------------------------------------------------------------

    /** Copies the records after the token under the lock; the caller encodes them outside it. */
    synchronized ReadBatch read(
            String tunnelId, String clientId, String channelId, String token, int limit)
            throws EmulatorError {
        Tunnel t = live(tunnelId);
        TunnelChannel c = channelFor(tunnelId, clientId, channelId);
        if (!c.isOwnedBy(clientId)) {
            throw TunnelErrors.parameterInvalid(
                    "Channel "
                            + channelId
                            + " is not held by client "
                            + clientId
                            + "; read only channels a heartbeat response handed you as OPEN");
        }
        if (ChannelToken.FINISHED.equals(token)) {
            return ReadBatch.finished(List.of(), List.of(), ReadBatch.EMPTY);
        }
        ChannelToken from = positionIn(t, c, token);
        return c.kind() == ChannelKind.BASE
                ? readBase(t, c, from.offset(), limit)
                : readStream(t, c, from, limit);
    }

    private ReadBatch readBase(Tunnel t, TunnelChannel c, int offset, int limit) {
        List<Row> rows = t.baseRows(c.id());
        int end = Math.min(rows.size(), offset + limit);
        List<Row> batch = List.copyOf(rows.subList(offset, end));
        long created = t.createdNanos();
        IntFunction<ChannelToken> after = k -> ChannelToken.base(offset + k, created);
        if (end == rows.size()) {
            return ReadBatch.finished(batch, List.of(), after);
        }
        return new ReadBatch(
                batch, List.of(), Optional.of(ChannelToken.base(end, created)), true, after);
    }

    private ReadBatch readStream(Tunnel t, TunnelChannel c, ChannelToken from, int limit) {
        Partition p = partitions(t.table()).byId(c.partitionId()).orElseThrow();
        StreamEnd end = streamEnd(t, p);
        int start = Math.min(from.offset(), end.index());
        int to = Math.min(end.index(), start + limit);
        List<LogEntry> entries = p.entries(start, to);
        String partition = p.id();
        IntFunction<ChannelToken> after =
                k -> ChannelToken.stream(partition, start + k, entries.get(k - 1).timeNanos());
        if (end.isFinal() && to == end.index()) {
            return ReadBatch.finished(List.of(), entries, after);
        }
        long time =
                entries.isEmpty() ? from.timeNanos() : entries.get(entries.size() - 1).timeNanos();
        ChannelToken next = ChannelToken.stream(p.id(), to, time);
        return new ReadBatch(List.of(), entries, Optional.of(next), to < end.index(), after);
    }

    /**
     * How far a stream channel may read now, and whether that is its end: an ended partition ends
     * at its last record; with an end offset, the channel ends before the first record at or after
     * it, or at the log's end once the clock has passed it.
     */
    private StreamEnd streamEnd(Tunnel t, Partition p) {
        StreamEnd end = new StreamEnd(p.logSize(), !p.isActive());
        Optional<Long> endOffset = t.endOffsetNanos();
        if (endOffset.isPresent()) {
            int cut = p.firstIndexAtOrAfter(endOffset.get());
            if (cut < end.index() || nowNanos() >= endOffset.get()) {
                end = new StreamEnd(cut, true);
            }
        }
        return end;
    }

    private record StreamEnd(int index, boolean isFinal) {}

    // ---- lookups -----------------------------------------------------------------------------

    /** Decodes a token and checks it points into this channel's range of positions. */
    private ChannelToken positionIn(Tunnel t, TunnelChannel c, String token) throws EmulatorError {
        Optional<ChannelToken> decoded = ChannelToken.decode(token);
        boolean fits = decoded.isPresent() && fitsChannel(t, c, decoded.get());
        if (!fits) {
            throw TunnelErrors.parameterInvalid(
                    "Token is not a position of channel "
                            + c.id()
                            + "; use the checkpoint from getcheckpoint or a next_token this"
                            + " channel returned");
        }
        return decoded.get();
    }

    private boolean fitsChannel(Tunnel t, TunnelChannel c, ChannelToken token) {
        if (c.kind() == ChannelKind.BASE) {
            return !token.isStream() && token.offset() <= t.baseRows(c.id()).size();
        }
        if (!token.isStream() || !token.partitionId().get().equals(c.partitionId())) {
            return false;
        }
        Optional<Partition> p = partitions(t.table()).byId(c.partitionId());
        return p.isPresent()
                && token.offset() >= c.startOffset()
                && token.offset() <= p.get().logSize();
    }

    private TunnelChannel channelFor(String tunnelId, String clientId, String channelId)
            throws EmulatorError {
        Tunnel t = live(tunnelId);
        session(t, clientId);
        return t.channel(channelId)
                .orElseThrow(
                        () ->
                                TunnelErrors.parameterInvalid(
                                        "Channel "
                                                + channelId
                                                + " does not exist in tunnel "
                                                + tunnelId
                                                + "; use a channel id a heartbeat"
                                                + " response listed"));
    }

    /** The tunnel by id, refusing expired ones, after dropping clients with overdue heartbeats. */
    private Tunnel live(String tunnelId) throws EmulatorError {
        recovered();
        Tunnel t = tunnels.get(tunnelId);
        if (t == null) {
            throw TunnelErrors.parameterInvalid(
                    "Tunnel id " + tunnelId + " does not exist; describe the tunnel for its id");
        }
        if (t.isExpired()) {
            throw TunnelErrors.tunnelExpired(tunnelId);
        }
        expireOverdueClients(t);
        return t;
    }

    private void expireOverdueClients(Tunnel t) {
        t.expireClients(clockMillis.getAsLong(), false);
    }

    private static ClientSession session(Tunnel t, String clientId) throws EmulatorError {
        return t.client(clientId).orElseThrow(() -> TunnelErrors.clientGone(clientId));
    }

    private Tunnel find(String tunnelIdOrName) throws EmulatorError {
        recovered();
        Tunnel byId = tunnels.get(tunnelIdOrName);
        if (byId != null) {
            return byId;
        }
        List<Tunnel> named =
                tunnels.values().stream().filter(t -> t.name().equals(tunnelIdOrName)).toList();
        if (named.size() != 1) {
            throw TunnelErrors.parameterInvalid(
                    named.isEmpty()
                            ? "No tunnel has id or name " + tunnelIdOrName
                            : "Several tables have a tunnel named "
                                    + tunnelIdOrName
                                    + "; pass the tunnel id instead");
        }
        return named.get(0);
    }

    private long nowNanos() {
        return clockMillis.getAsLong() * 1_000_000L;
    }
}
