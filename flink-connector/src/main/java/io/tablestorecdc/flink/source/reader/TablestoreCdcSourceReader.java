package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.UnreadableChannel;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.ServerFinishedCheck;
import io.tablestorecdc.flink.source.event.TablesReadEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.metrics.ChannelMetricGroups;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the channels assigned to one subtask.
 *
 * <p>A finished channel stays in this reader's state until a checkpoint that contains its finish
 * completes, and is reported to the enumerator again after every restore: a report lost across a
 * checkpoint (the enumerator snapshot was taken before the report, the reader's after) can then not
 * stall the channel's children. On each completed checkpoint the positions of that checkpoint go to
 * the enumerator, which pushes them to the tunnel server. A restored channel the server has
 * finished is judged here, where its state is ({@link ServerFinishedCheck}).
 *
 * <p>A channel stopped at the end position of a bounded source stays in the state at the position
 * where it stopped (a restored one is read once more and stops again at once) and is reported
 * stopped. Each channel being read has a gauge {@code channel.<id>.millisBehindLatest}, removed
 * when its split ends; the reader has FLIP-33's {@code currentFetchEventTimeLag}.
 */
@Internal
public final class TablestoreCdcSourceReader<T>
        extends SingleThreadMultiplexSourceReaderBase<
                ChannelRecord, T, ChannelSplit, ChannelSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreCdcSourceReader.class);

    /** The metric group of one channel: {@code channel.<channel id>}. */
    public static final String CHANNEL_GROUP = "channel";

    /** The metric group of one table of a source of several: {@code table.<name>}. */
    public static final String TABLE_GROUP = "table";

    /**
     * Per table of a source of several, per reader: the changes read from the table (skipped and
     * ignored ones included).
     */
    public static final String RECORDS_READ = "recordsRead";

    /** Per channel: now minus the commit time of its newest record read; 0 when caught up. */
    public static final String MILLIS_BEHIND_LATEST = "millisBehindLatest";

    /** Per reader (FLIP-33's standard name): fetch time minus the newest record's commit time. */
    public static final String CURRENT_FETCH_EVENT_TIME_LAG = "currentFetchEventTimeLag";

    /**
     * Per reader: restored channels this reader ended unread under {@code on.server.ahead=skip}
     * (the enumerator's gauge of the same name counts those it ended itself).
     */
    public static final String CHANNELS_SKIPPED_ON_SERVER_AHEAD = "channelsSkippedOnServerAhead";

    private static final long UNDEFINED = -1L;

    private final TunnelClients clients;
    private final FetchedChannels fetched;

    /** Channels being read, at the position they were added at. */
    private final Map<String, ChannelSplit> reading = new TreeMap<>();

    /** Channels stopped at the end position, at the position where they stopped. */
    private final Map<String, ChannelSplit> stopped = new TreeMap<>();

    private final MetricGroup metrics;

    /** The channels' metric groups, by table ("" for the one table of a source of one table). */
    private final Map<String, ChannelMetricGroups> channelMetrics = new HashMap<>();

    private final List<String> stopsToReport = new ArrayList<>();

    /** Finished channels kept in state, with the first checkpoint that holds them (if any yet). */
    private final Map<String, FinishedChannel> finished = new TreeMap<>();

    private final SortedMap<Long, List<ChannelSplit>> positionsByCheckpoint = new TreeMap<>();
    private final SortedMap<Long, Set<String>> caughtUpByCheckpoint = new TreeMap<>();
    private final List<String> toReport = new ArrayList<>();
    private final Set<String> skippedOnServerAhead = new TreeSet<>();
    private boolean started;

    public TablestoreCdcSourceReader(
            Supplier<SplitReader<ChannelRecord, ChannelSplit>> splitReaderSupplier,
            ChangeRecordEmitter<T> emitter,
            TunnelClients clients,
            FetchedChannels fetched,
            Configuration config,
            SourceReaderContext context) {
        super(splitReaderSupplier, emitter, config, context);
        this.clients = clients;
        this.fetched = fetched;
        this.metrics = context.metricGroup();
        context.metricGroup()
                .gauge(
                        CURRENT_FETCH_EVENT_TIME_LAG,
                        () -> fetched.fetchEventTimeLag().orElse(UNDEFINED));
        context.metricGroup()
                .gauge(CHANNELS_SKIPPED_ON_SERVER_AHEAD, () -> skippedOnServerAhead.size());
    }

    @Override
    public void start() {
        started = true;
        reportFinished();
    }

    @Override
    public void addSplits(List<ChannelSplit> splits) {
        List<ChannelSplit> active = new ArrayList<>();
        for (ChannelSplit split : splits) {
            if (split.isFinished()) {
                finished.put(split.splitId(), new FinishedChannel(split, Optional.empty()));
                toReport.add(split.splitId());
            } else {
                active.add(split);
            }
        }
        if (!active.isEmpty()) {
            active.forEach(split -> reading.put(split.splitId(), split));
            active.forEach(this::registerChannelMetrics);
            super.addSplits(active);
        }
        if (started) {
            reportFinished();
        }
    }

    @Override
    protected void onSplitFinished(Map<String, ChannelSplitState> finishedSplitIds) {
        for (ChannelSplitState state : finishedSplitIds.values()) {
            String id = state.splitId();
            ChannelSplit read = reading.remove(id);
            if (read != null) {
                unregisterChannelMetrics(read);
            }
            if (fetched.takeStopped(id)) {
                stopped.put(id, state.toSplit());
                stopsToReport.add(id);
            } else {
                ChannelSplit split = state.toSplit().at(ChannelPosition.finished());
                finished.put(id, new FinishedChannel(split, Optional.empty()));
                toReport.add(id);
            }
        }
        reportFinished();
    }

    private void reportFinished() {
        if (!toReport.isEmpty()) {
            LOG.info("Reporting finished channels {}", toReport);
            context.sendSourceEventToCoordinator(new ChannelsFinishedEvent(toReport));
            toReport.clear();
        }
        if (!stopsToReport.isEmpty()) {
            LOG.info("Reporting channels stopped at the end position {}", stopsToReport);
            context.sendSourceEventToCoordinator(new ChannelsStoppedEvent(stopsToReport));
            stopsToReport.clear();
        }
    }

    /**
     * Registers the gauges of a split's channel: {@code channel.<id>}, under {@code table.<name>}
     * in a source of several tables.
     */
    private void registerChannelMetrics(ChannelSplit split) {
        String splitId = split.splitId();
        MetricGroup group = channelMetricsOf(split).add(split.channelId());
        group.gauge(
                MILLIS_BEHIND_LATEST, () -> fetched.millisBehindLatest(splitId).orElse(UNDEFINED));
    }

    private void unregisterChannelMetrics(ChannelSplit split) {
        channelMetricsOf(split).remove(split.channelId());
    }

    private ChannelMetricGroups channelMetricsOf(ChannelSplit split) {
        return channelMetrics.computeIfAbsent(
                split.table().orElse(""),
                table -> {
                    if (table.isEmpty()) {
                        return new ChannelMetricGroups(metrics, CHANNEL_GROUP);
                    }
                    MetricGroup group = tableGroup(metrics, table);
                    group.gauge(
                            MILLIS_BEHIND_LATEST,
                            () -> fetched.millisBehindLatestOfTable(table).orElse(UNDEFINED));
                    return new ChannelMetricGroups(group, CHANNEL_GROUP);
                });
    }

    /** The metric group of {@code table} (one of several) under a reader's {@code metrics}. */
    public static MetricGroup tableGroup(MetricGroup metrics, String table) {
        return metrics.addGroup(TABLE_GROUP, table);
    }

    @Override
    public List<ChannelSplit> snapshotState(long checkpointId) {
        List<ChannelSplit> splits = new ArrayList<>(super.snapshotState(checkpointId));
        Set<String> caughtUp = new TreeSet<>();
        for (ChannelSplit split : splits) {
            if (fetched.isDrainedAt(split.splitId(), split.position())) {
                caughtUp.add(split.splitId());
            }
        }
        caughtUpByCheckpoint.put(checkpointId, caughtUp);
        for (Map.Entry<String, FinishedChannel> e : finished.entrySet()) {
            FinishedChannel channel = e.getValue();
            if (channel.firstCheckpoint().isEmpty()) {
                e.setValue(new FinishedChannel(channel.split(), Optional.of(checkpointId)));
            }
            splits.add(channel.split());
        }
        splits.addAll(stopped.values());
        positionsByCheckpoint.put(checkpointId, List.copyOf(splits));
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        List<ChannelSplit> committed = positionsByCheckpoint.get(checkpointId);
        Set<String> caughtUp = caughtUpByCheckpoint.getOrDefault(checkpointId, Set.of());
        positionsByCheckpoint.headMap(checkpointId + 1).clear();
        caughtUpByCheckpoint.headMap(checkpointId + 1).clear();
        finished.values()
                .removeIf(c -> c.firstCheckpoint().map(n -> n <= checkpointId).orElse(false));
        if (committed != null && !committed.isEmpty()) {
            context.sendSourceEventToCoordinator(
                    new CommittedPositionsEvent(checkpointId, committed, caughtUp));
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof TunnelClientEvent) {
            TunnelClientEvent tunnelClient = (TunnelClientEvent) event;
            TunnelClientId id = tunnelClient.clientId();
            Optional<String> table = tunnelClient.table();
            LOG.info(
                    "Reading {}with tunnel client {}",
                    table.map(t -> "table " + t + " ").orElse(""),
                    id.clientId());
            // Before the client: nothing skipped is read.
            fetched.skip(splitIds(table, tunnelClient.skipped()));
            fetched.skip(splitIds(table, unreadable(table, tunnelClient.serverFinished())));
            clients.set(table, id);
        } else if (event instanceof TablesReadEvent tablesRead) {
            LOG.info("The source reads tables {}", new TreeSet<>(tablesRead.tables()));
            fetched.readTables(tablesRead.tables());
        } else {
            super.handleSourceEvents(event);
        }
    }

    /**
     * The channels of {@code check} this reader holds unfinished: its state is older than the
     * server's. Under {@code on.server.ahead=fail} the reader fails before reading anything; under
     * {@code skip} it returns them to be ended unread. One it holds finished (its state read it to
     * the end; the enumerator's snapshot, taken first, missed the report) is not among them.
     *
     * @throws ServerAheadException under {@code fail}
     */
    private Set<String> unreadable(Optional<String> table, ServerFinishedCheck check) {
        List<UnreadableChannel> unreadable = new ArrayList<>();
        for (String id : check.channelIds()) {
            ChannelSplit split = reading.get(ChannelSplit.idOf(table, id));
            if (split != null) {
                unreadable.add(new UnreadableChannel(id, Optional.of(split.position()), true));
            }
        }
        if (unreadable.isEmpty()) {
            return Set.of();
        }
        if (check.policy() == ServerAheadPolicy.FAIL) {
            throw new ServerAheadException(check.tunnelId(), unreadable)
                    .withContext(Engine.FLINK, check.tunnel(), check.restoredFrom());
        }
        Set<String> ids = new TreeSet<>();
        for (UnreadableChannel channel : unreadable) {
            LOG.warn(
                    "Skipping changes the tunnel server can no longer serve ({}=skip): {}",
                    ServerAheadPolicy.OPTION_KEY,
                    channel.describe());
            ids.add(channel.channelId());
        }
        skippedOnServerAhead.addAll(ids);
        return ids;
    }

    private static Set<String> splitIds(Optional<String> table, Set<String> channelIds) {
        Set<String> ids = new TreeSet<>();
        channelIds.forEach(id -> ids.add(ChannelSplit.idOf(table, id)));
        return ids;
    }

    @Override
    protected ChannelSplitState initializedState(ChannelSplit split) {
        return new ChannelSplitState(split);
    }

    @Override
    protected ChannelSplit toSplitType(String splitId, ChannelSplitState splitState) {
        return splitState.toSplit();
    }

    /** A finished channel and the first checkpoint that contains its finish. */
    private record FinishedChannel(ChannelSplit split, Optional<Long> firstCheckpoint) {}
}
