package io.tablestorecdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.ServerFinishedCheck;
import io.tablestorecdc.flink.source.event.TablesReadEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.testing.FakeServices;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.metrics.groups.GenericMetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TablestoreCdcSourceReaderTest {

    private final FakeTunnelService server =
            FakeServices.ordersTunnel("t", TunnelType.STREAM)
                    .channel("a", ChannelType.STREAM)
                    .append("a", 1, 2, 3)
                    .seal("a")
                    .channel("b", ChannelType.STREAM)
                    .append("b", 10, 11);
    private final Map<String, Metric> metrics = new ConcurrentHashMap<>();
    private final TestingMetricRegistry registry =
            TestingMetricRegistry.builder()
                    .setDelimiter('.')
                    .setRegisterConsumer(
                            (metric, name, group) ->
                                    metrics.put(group.getMetricIdentifier(name), metric))
                    .setUnregisterConsumer(
                            (metric, name, group) ->
                                    metrics.remove(group.getMetricIdentifier(name)))
                    .build();
    private final TestingReaderContext context =
            new TestingReaderContext(
                    new Configuration(),
                    InternalSourceReaderMetricGroup.mock(
                            new GenericMetricGroup(registry, null, "reader")));
    private final TestingReaderOutput<String> output = new TestingReaderOutput<>();
    private final FetchedChannels fetched = new FetchedChannels();
    private final List<ChannelSplitReader> splitReaders = new CopyOnWriteArrayList<>();
    private Optional<Instant> stopAt = Optional.empty();
    private TablestoreCdcSourceReader<String> reader;

    @AfterEach
    void close() throws Exception {
        if (reader != null) {
            reader.close();
        }
    }

    @Test
    void emitsEveryRecordAndReportsTheFinishedChannel() throws Exception {
        startReader(split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@0")));

        pollUntil(() -> output.getEmittedRecords().size() == 5 && !finishedReports().isEmpty());

        assertThat(output.getEmittedRecords())
                .containsExactlyInAnyOrder(
                        "PUT id=1 v='v1'",
                        "PUT id=2 v='v2'",
                        "PUT id=3 v='v3'",
                        "PUT id=10 v='v10'",
                        "PUT id=11 v='v11'");
        assertThat(finishedReports()).containsExactly(new ChannelsFinishedEvent(List.of("a")));
    }

    @Test
    void aFinishedChannelStaysInStateUntilItsCheckpointCompletes() throws Exception {
        startReader(split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@0")));
        pollUntil(() -> output.getEmittedRecords().size() == 5 && !finishedReports().isEmpty());

        List<ChannelSplit> state1 = reader.snapshotState(1);
        assertThat(state1)
                .containsExactlyInAnyOrder(
                        split("a", ChannelPosition.finished()),
                        split("b", ChannelPosition.at("b@2")));
        assertThat(reader.snapshotState(2)).contains(split("a", ChannelPosition.finished()));

        reader.notifyCheckpointComplete(1);

        assertThat(context.getSentEvents())
                .filteredOn(e -> e instanceof CommittedPositionsEvent)
                .map(e -> ((CommittedPositionsEvent) e).positions())
                .containsExactly(state1);
        assertThat(reader.snapshotState(3)).containsExactly(split("b", ChannelPosition.at("b@2")));
    }

    @Test
    void aRestoredFinishedChannelIsReportedAgainAndNotRead() throws Exception {
        // "z" does not exist on the server: reading it would fail the reader.
        startReader(split("z", ChannelPosition.finished()), split("b", ChannelPosition.at("b@1")));

        pollUntil(() -> output.getEmittedRecords().size() == 1);

        assertThat(finishedReports()).containsExactly(new ChannelsFinishedEvent(List.of("z")));
        assertThat(output.getEmittedRecords()).containsExactly("PUT id=11 v='v11'");
        assertThat(reader.snapshotState(1)).contains(split("z", ChannelPosition.finished()));
    }

    // ---- a restored channel the server finished (docs/exactly-once.md, "Restoring from older
    // state") ----

    @Test
    void aRestoredChannelHeldFinishedThatTheServerFinishedIsReportedAgainAndAllElseRead()
            throws Exception {
        addSplitsWithoutClient(
                split("a", ChannelPosition.finished()), split("b", ChannelPosition.at("b@1")));
        giveClient(serverFinished(ServerAheadPolicy.FAIL, "a"));

        pollUntil(() -> output.getEmittedRecords().size() == 1);

        assertThat(output.getEmittedRecords()).containsExactly("PUT id=11 v='v11'");
        assertThat(finishedReports()).containsExactly(new ChannelsFinishedEvent(List.of("a")));
    }

    @Test
    void aRestoredChannelHeldUnfinishedThatTheServerFinishedFailsTheReaderBeforeAnyRead() {
        addSplitsWithoutClient(
                split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@1")));

        assertThatThrownBy(() -> giveClient(serverFinished(ServerAheadPolicy.FAIL, "a", "z")))
                .isInstanceOf(ServerAheadException.class)
                .hasMessageContaining("The job on tunnel 'orders' of table 'orders'")
                .hasMessageContaining("(Flink checkpoint or savepoint 7)")
                .hasMessageContaining("the server has finished 1 channel(s)")
                .hasMessageContaining("a: every change after position a@0")
                .hasMessageContaining("Nothing was delivered")
                .hasMessageContaining("on.server.ahead=skip");
        assertThat(clients.of(Optional.empty())).as("no client: nothing can be read").isEmpty();
        assertThat(pollStatus()).isNotEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.getEmittedRecords()).isEmpty();
    }

    @Test
    void withSkipARestoredChannelHeldUnfinishedThatTheServerFinishedEndsUnread() throws Exception {
        addSplitsWithoutClient(
                split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@1")));
        giveClient(serverFinished(ServerAheadPolicy.SKIP, "a"));

        pollUntil(() -> output.getEmittedRecords().size() == 1 && !finishedReports().isEmpty());

        assertThat(output.getEmittedRecords()).containsExactly("PUT id=11 v='v11'");
        assertThat(finishedReports()).containsExactly(new ChannelsFinishedEvent(List.of("a")));
        assertThat(reader.snapshotState(1)).contains(split("a", ChannelPosition.finished()));
        assertThat(gauge("reader.channelsSkippedOnServerAhead")).isEqualTo(1);
    }

    @Test
    void aChannelDrainedAtItsCheckpointedPositionIsReportedCaughtUpWithTheCheckpoint()
            throws Exception {
        startReader(split("b", ChannelPosition.at("b@0")));
        pollUntil(
                () ->
                        output.getEmittedRecords().size() == 2
                                && fetched.isDrainedAt("b", ChannelPosition.at("b@2")));

        List<ChannelSplit> state = reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);

        assertThat(context.getSentEvents())
                .contains(new CommittedPositionsEvent(1, state, Set.of("b")));
    }

    @Test
    void aChannelNotReadSinceItsCheckpointedPositionIsNotReportedCaughtUp() throws Exception {
        addSplitsWithoutClient(split("b", ChannelPosition.at("b@0"))); // no client: nothing read

        List<ChannelSplit> state = reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);

        assertThat(context.getSentEvents())
                .contains(new CommittedPositionsEvent(1, state, Set.of()));
    }

    // ---- lag metrics ----

    @Test
    void eachChannelHasALagGaugeUntilItsSplitEndsAndTheReaderAFetchLag() throws Exception {
        startReader(split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@0")));
        assertThat(metrics)
                .containsKeys(
                        "reader.channel.a.millisBehindLatest",
                        "reader.channel.b.millisBehindLatest",
                        "reader.currentFetchEventTimeLag");

        pollUntil(() -> output.getEmittedRecords().size() == 5 && !finishedReports().isEmpty());
        pollUntil(() -> gauge("reader.channel.b.millisBehindLatest") == 0L);

        assertThat(metrics).doesNotContainKey("reader.channel.a.millisBehindLatest");
        assertThat(TablestoreCdcSourceReader.CURRENT_FETCH_EVENT_TIME_LAG)
                .as("FLIP-33's name, as the Flink it runs on spells it")
                .isEqualTo(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG);
        // The fake's records were committed about 1 s after the epoch.
        assertThat(gauge("reader.currentFetchEventTimeLag"))
                .isGreaterThan(System.currentTimeMillis() - 60_000);
    }

    // ---- watermark alignment ----

    @Test
    void aPausedChannelIsNotReadUntilResumed() throws Exception {
        addSplitsWithoutClient(
                split("a", ChannelPosition.at("a@0")), split("b", ChannelPosition.at("b@0")));
        pollUntil(() -> splitReaders.size() == 1);
        // The fetcher pauses only splits it has been handed; a pause sent before its add-splits
        // task ran would be dropped (Flink's alignment re-sends it; this test would not).
        pollUntil(() -> splitReaders.get(0).channelIds().size() == 2);
        reader.pauseOrResumeSplits(List.of("a"), List.of());
        pollUntil(() -> splitReaders.get(0).pausedChannelIds().contains("a"));
        giveClient();

        // Unpaused, "a" would be read first (round robin in assignment order).
        pollUntil(() -> output.getEmittedRecords().size() == 2);
        assertThat(output.getEmittedRecords())
                .containsExactly("PUT id=10 v='v10'", "PUT id=11 v='v11'");

        reader.pauseOrResumeSplits(List.of(), List.of("a"));
        pollUntil(() -> output.getEmittedRecords().size() == 5);
        assertThat(output.getEmittedRecords().subList(2, 5))
                .containsExactly("PUT id=1 v='v1'", "PUT id=2 v='v2'", "PUT id=3 v='v3'");
    }

    // ---- several tables ----

    @Test
    void aChannelOfOneOfSeveralTablesIsReadWithItsTablesClientAndMeasuredUnderItsTable()
            throws Exception {
        reader =
                new TablestoreCdcSourceReader<>(
                        () -> new ChannelSplitReader(server, clients::of, fetched, stopAt),
                        new ChangeRecordEmitter<>(
                                new RecordStrings(),
                                false,
                                false,
                                new SimpleCounter(),
                                "",
                                t ->
                                        TablestoreCdcSourceReader.tableGroup(
                                                        context.metricGroup(), t)
                                                .counter(TablestoreCdcSourceReader.RECORDS_READ)),
                        clients,
                        fetched,
                        new Configuration(),
                        context);
        reader.addSplits(
                List.of(
                        new ChannelSplit(
                                Optional.of("orders"),
                                "a",
                                ChannelType.STREAM,
                                ChannelPosition.at("a@0"))));
        reader.start();
        reader.handleSourceEvents(new TablesReadEvent(Set.of("orders", "users")));
        TunnelClientId client = new TunnelClientId("t", "client-1");
        reader.handleSourceEvents(new TunnelClientEvent(client).forTable("users"));
        for (int i = 0; i < 5; i++) {
            pollStatus();
        }
        assertThat(output.getEmittedRecords()).as("no client of the split's table yet").isEmpty();

        reader.handleSourceEvents(new TunnelClientEvent(client).forTable("orders"));
        pollUntil(() -> output.getEmittedRecords().size() == 3);
        pollUntil(
                () ->
                        context.getSentEvents()
                                .contains(new ChannelsFinishedEvent(List.of("orders/a"))));

        assertThat(((Counter) metrics.get("reader.table.orders.recordsRead")).getCount())
                .isEqualTo(3);
        assertThat(metrics).containsKey("reader.table.orders.millisBehindLatest");
    }

    // ---- an end position (scan.bounded.stop-at) ----

    @Test
    void aStoppedChannelIsReportedStoppedAndStaysInStateWhereItStopped() throws Exception {
        stopAt = Optional.of(Instant.ofEpochMilli(1001)); // a's records: 1000, 1001, 1002 ms
        startReader(split("a", ChannelPosition.at("a@0")));

        pollUntil(() -> context.getSentEvents().contains(new ChannelsStoppedEvent(List.of("a"))));
        reader.notifyNoMoreSplits();
        pollUntil(() -> pollStatus() == InputStatus.END_OF_INPUT);

        assertThat(output.getEmittedRecords())
                .containsExactly("PUT id=1 v='v1'", "PUT id=2 v='v2'");
        assertThat(finishedReports()).isEmpty();
        assertThat(reader.snapshotState(1)).containsExactly(split("a", ChannelPosition.at("a@2")));
        reader.notifyCheckpointComplete(1);
        assertThat(reader.snapshotState(2)).containsExactly(split("a", ChannelPosition.at("a@2")));
        assertThat(metrics).doesNotContainKey("reader.channel.a.millisBehindLatest");
    }

    private final TunnelClients clients = new TunnelClients();

    private void startReader(ChannelSplit... splits) {
        addSplitsWithoutClient(splits);
        giveClient();
    }

    private void addSplitsWithoutClient(ChannelSplit... splits) {
        reader =
                new TablestoreCdcSourceReader<>(
                        () -> {
                            ChannelSplitReader splitReader =
                                    new ChannelSplitReader(server, clients::of, fetched, stopAt);
                            splitReaders.add(splitReader);
                            return splitReader;
                        },
                        new ChangeRecordEmitter<>(
                                new RecordStrings(), false, false, new SimpleCounter()),
                        clients,
                        fetched,
                        new Configuration(),
                        context);
        reader.addSplits(List.of(splits)); // as on restore: before start
        reader.start();
    }

    private void giveClient() {
        giveClient(ServerFinishedCheck.none());
    }

    private void giveClient(ServerFinishedCheck serverFinished) {
        reader.handleSourceEvents(
                new TunnelClientEvent(
                        new TunnelClientId("t", "client-1"), Set.of(), serverFinished));
    }

    private static ServerFinishedCheck serverFinished(ServerAheadPolicy policy, String... ids) {
        return new ServerFinishedCheck(
                Set.of(ids),
                policy,
                "t",
                "tunnel 'orders' of table 'orders'",
                "Flink checkpoint or savepoint 7");
    }

    private InputStatus pollStatus() {
        try {
            return reader.pollNext(output);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private long gauge(String identifier) {
        Metric metric = metrics.get(identifier);
        assertThat(metric).as(identifier).isInstanceOf(Gauge.class);
        return ((Number) ((Gauge<?>) metric).getValue()).longValue();
    }

    private List<SourceEvent> finishedReports() {
        return context.getSentEvents().stream()
                .filter(e -> e instanceof ChannelsFinishedEvent)
                .toList();
    }

    private void pollUntil(BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Timed out; emitted "
                                + output.getEmittedRecords()
                                + ", events "
                                + context.getSentEvents());
            }
            reader.pollNext(output);
            try {
                reader.isAvailable().get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // nothing yet; poll again
            }
        }
    }

    private static ChannelSplit split(String id, ChannelPosition position) {
        return new ChannelSplit(id, ChannelType.STREAM, position);
    }
}
