package io.tablestorecdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.testing.FakeTunnelServer;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TablestoreCdcSourceReaderTest {

    private final FakeTunnelServer server =
            new FakeTunnelServer("t", TunnelType.STREAM)
                    .channel("a", ChannelType.STREAM)
                    .append("a", 1, 2, 3)
                    .seal("a")
                    .channel("b", ChannelType.STREAM)
                    .append("b", 10, 11);
    private final TestingReaderContext context = new TestingReaderContext();
    private final TestingReaderOutput<String> output = new TestingReaderOutput<>();
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

        assertThat(context.getSentEvents()).contains(new CommittedPositionsEvent(1, state1));
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

    private void startReader(ChannelSplit... splits) {
        AtomicReference<TunnelClientId> client = new AtomicReference<>();
        reader =
                new TablestoreCdcSourceReader<>(
                        () ->
                                new ChannelSplitReader(
                                        server.proxy(), TablestoreCdcSourceReader.clientOf(client)),
                        new ChangeRecordEmitter<>(
                                new RecordStrings(), false, false, new SimpleCounter()),
                        client,
                        new Configuration(),
                        context);
        reader.addSplits(List.of(splits)); // as on restore: before start
        reader.start();
        reader.handleSourceEvents(new TunnelClientEvent(new TunnelClientId("t", "client-1")));
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
