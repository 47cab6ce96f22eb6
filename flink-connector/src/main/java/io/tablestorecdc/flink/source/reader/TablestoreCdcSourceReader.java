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
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.metrics.ChannelMetricGroups;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
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

    private final AtomicReference<TunnelClientId> client;
    private final FetchedChannels fetched;

    /** Channels being read, at the position they were added at. */
    private final Map<String, ChannelSplit> reading = new TreeMap<>();

    /** Channels stopped at the end position, at the position where they stopped. */
    private final Map<String, ChannelSplit> stopped = new TreeMap<>();

    private final ChannelMetricGroups channelMetrics;
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
            AtomicReference<TunnelClientId> client,
            FetchedChannels fetched,
            Configuration config,
            SourceReaderContext context) {
        super(splitReaderSupplier, emitter, config, context);
        this.client = client;
        this.fetched = fetched;
        this.channelMetrics = new ChannelMetricGroups(context.metricGroup(), CHANNEL_GROUP);
        context.metricGroup()
                .gauge(
                        CURRENT_FETCH_EVENT_TIME_LAG,
                        () -> fetched.fetchEventTimeLag().orElse(UNDEFINED));
        context.metricGroup()
                .gauge(CHANNELS_SKIPPED_ON_SERVER_AHEAD, () -> skippedOnServerAhead.size());
    }

    /** The holder the split readers ask for the tunnel client id. */
    public static Supplier<Optional<TunnelClientId>> clientOf(
            AtomicReference<TunnelClientId> holder) {
        return () -> Optional.ofNullable(holder.get());
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
            active.forEach(split -> registerChannelMetrics(split.splitId()));
            super.addSplits(active);
        }
        if (started) {
            reportFinished();
        }
    }

    @Override
    protected void onSplitFinished(Map<String, ChannelSplitState> finishedSplitIds) {
        for (ChannelSplitState state : finishedSplitIds.values()) {
            String id = state.channelId();
            reading.remove(id);
            unregisterChannelMetrics(id);
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

    private void registerChannelMetrics(String channelId) {
        MetricGroup group = channelMetrics.add(channelId);
        group.gauge(
                MILLIS_BEHIND_LATEST,
                () -> fetched.millisBehindLatest(channelId).orElse(UNDEFINED));
    }

    private void unregisterChannelMetrics(String channelId) {
        channelMetrics.remove(channelId);
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
            LOG.info("Reading with tunnel client {}", id.clientId());
            fetched.skip(tunnelClient.skipped()); // before the client: nothing skipped is read
            fetched.skip(unreadable(tunnelClient.serverFinished()));
            client.set(id);
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
    private Set<String> unreadable(ServerFinishedCheck check) {
        List<UnreadableChannel> unreadable = new ArrayList<>();
        for (String id : check.channelIds()) {
            ChannelSplit split = reading.get(id);
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
