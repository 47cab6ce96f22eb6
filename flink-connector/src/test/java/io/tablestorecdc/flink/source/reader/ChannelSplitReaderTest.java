package io.tablestorecdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.testing.FakeServices;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.junit.jupiter.api.Test;

class ChannelSplitReaderTest {

    private final FakeTunnelService server =
            FakeServices.ordersTunnel("t", TunnelType.STREAM)
                    .channel("a", ChannelType.STREAM)
                    .append("a", 1, 2, 3, 4, 5)
                    .seal("a")
                    .batchSize(2);
    private final AtomicReference<TunnelClientId> client =
            new AtomicReference<>(new TunnelClientId("t", "c1"));
    private final ChannelSplitReader reader =
            new ChannelSplitReader(server, () -> Optional.ofNullable(client.get()));

    @Test
    void readsEveryRecordWithThePositionAfterItThenFinishes() throws Exception {
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(split(ChannelPosition.at("a@0")))));

        List<Taken> records = new ArrayList<>();
        Set<String> finished = drain(records);

        assertThat(records)
                .extracting(r -> RecordStrings.render(r.record()))
                .containsExactly(
                        "PUT id=1 v='v1'",
                        "PUT id=2 v='v2'",
                        "PUT id=3 v='v3'",
                        "PUT id=4 v='v4'",
                        "PUT id=5 v='v5'");
        assertThat(records)
                .extracting(Taken::after)
                .containsExactly(
                        ChannelPosition.at("a@0", 1),
                        ChannelPosition.at("a@2"),
                        ChannelPosition.at("a@2", 1),
                        ChannelPosition.at("a@4"),
                        ChannelPosition.finished());
        assertThat(finished).containsExactly("a");
    }

    @Test
    void resumingInsideAResponseSkipsWhatWasEmittedHoweverTheServerBatches() throws Exception {
        server.batchSize(1); // the first run saw batches of 2; now the server sends 1 at a time
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(split(ChannelPosition.at("a@2", 1)))));

        List<Taken> records = new ArrayList<>();
        drain(records);

        assertThat(records)
                .extracting(r -> RecordStrings.render(r.record()))
                .containsExactly("PUT id=4 v='v4'", "PUT id=5 v='v5'");
    }

    @Test
    void aSkippedChannelEndsFinishedWithoutBeingRead() throws Exception {
        FetchedChannels fetched = new FetchedChannels();
        fetched.skip(Set.of("a"));
        ChannelSplitReader skipping =
                new ChannelSplitReader(
                        server, () -> Optional.ofNullable(client.get()), fetched, Optional.empty());
        skipping.handleSplitsChanges(
                new SplitsAddition<>(List.of(split(ChannelPosition.at("a@2", 1)))));

        RecordsWithSplitIds<ChannelRecord> batch = skipping.fetch();

        assertThat(batch.nextSplit()).isNull();
        assertThat(batch.finishedSplits()).containsExactly("a");
        assertThat(server.requests().reads()).isEmpty();
        skipping.close();
    }

    @Test
    void aChannelOfOneOfSeveralTablesReadsUnderItsSplitIdWithItsTablesClient() throws Exception {
        ChannelSplitReader tables =
                new ChannelSplitReader(
                        server,
                        table ->
                                table.equals(Optional.of("orders"))
                                        ? Optional.of(client.get())
                                        : Optional.empty(),
                        new FetchedChannels(),
                        Optional.empty());
        tables.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new ChannelSplit(
                                        Optional.of("orders"),
                                        "a",
                                        ChannelType.STREAM,
                                        ChannelPosition.at("a@0")))));

        List<Taken> records = new ArrayList<>();
        assertThat(drain(tables, records)).containsExactly("orders/a");
        assertThat(records).hasSize(5);
        tables.close();
    }

    @Test
    void aChannelOfATableThatIsGoneWaitsForTheSourceAndThenEndsUnread() throws Exception {
        FetchedChannels fetched = new FetchedChannels();
        ChannelSplitReader tables =
                new ChannelSplitReader(
                        server, table -> Optional.of(client.get()), fetched, Optional.empty());
        tables.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new ChannelSplit(
                                        Optional.of("orders"),
                                        "a",
                                        ChannelType.STREAM,
                                        ChannelPosition.at("a@0")))));
        server.setExists(false); // the table was dropped, its tunnel with it

        RecordsWithSplitIds<ChannelRecord> refused = tables.fetch();
        assertThat(refused.nextSplit()).isNull();
        assertThat(refused.finishedSplits()).as("waits for the enumerator's word").isEmpty();

        fetched.readTables(Set.of("users")); // the enumerator: orders is no longer read
        RecordsWithSplitIds<ChannelRecord> ended = tables.fetch();
        assertThat(ended.nextSplit()).isNull();
        assertThat(ended.finishedSplits()).containsExactly("orders/a");
        tables.close();
    }

    @Test
    void aChannelOfASourceOfOneTableThatIsGoneFailsTheReadAtOnce() {
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(split(ChannelPosition.at("a@0")))));
        server.setExists(false);

        assertThatThrownBy(reader::fetch)
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("Reading channel a failed");
    }

    @Test
    void readsNothingUntilTheTunnelClientIsKnown() throws Exception {
        client.set(null);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(split(ChannelPosition.at("a@0")))));

        RecordsWithSplitIds<ChannelRecord> batch = reader.fetch();

        assertThat(batch.nextSplit()).isNull();
        assertThat(batch.finishedSplits()).isEmpty();
    }

    @Test
    void pausedChannelsAreNotRead() throws Exception {
        ChannelSplit split = split(ChannelPosition.at("a@0"));
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
        reader.pauseOrResumeSplits(List.of(split), List.of());

        assertThat(reader.fetch().nextSplit()).isNull();

        reader.pauseOrResumeSplits(List.of(), List.of(split));
        assertThat(reader.fetch().nextSplit()).isEqualTo("a");
    }

    @Test
    void aPausedChannelWaitsWhileTheOthersAreReadAndIsReadOnceResumed() throws Exception {
        server.channel("b", ChannelType.STREAM).append("b", 10, 11).seal("b");
        ChannelSplit a = split(ChannelPosition.at("a@0"));
        ChannelSplit b = new ChannelSplit("b", ChannelType.STREAM, ChannelPosition.at("b@0"));
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a, b)));
        reader.pauseOrResumeSplits(List.of(a), List.of());

        List<Taken> records = new ArrayList<>();
        assertThat(drain(records)).containsExactly("b");
        assertThat(records).extracting(r -> r.record().channelId()).containsOnly("b");
        assertThat(reader.pausedChannelIds()).containsExactly("a");

        reader.pauseOrResumeSplits(List.of(), List.of(a));
        records.clear();
        assertThat(drain(records)).containsExactly("a");
        assertThat(records).hasSize(5);
    }

    // ---- an end position (scan.bounded.stop-at) ----

    @Test
    void stopsAChannelRightBeforeItsFirstRecordCommittedAfterTheEnd() throws Exception {
        // Record i of the fake is committed at 1000 + i ms: ids 1..3 are at or before the end.
        FetchedChannels fetched = new FetchedChannels();
        ChannelSplitReader bounded =
                new ChannelSplitReader(
                        server,
                        () -> Optional.ofNullable(client.get()),
                        fetched,
                        Optional.of(Instant.ofEpochMilli(1002)));
        bounded.handleSplitsChanges(
                new SplitsAddition<>(List.of(split(ChannelPosition.at("a@0")))));

        List<Taken> records = new ArrayList<>();
        Set<String> ended = drain(bounded, records);

        assertThat(records)
                .extracting(r -> RecordStrings.render(r.record()))
                .containsExactly("PUT id=1 v='v1'", "PUT id=2 v='v2'", "PUT id=3 v='v3'");
        assertThat(records.get(2).after()).isEqualTo(ChannelPosition.at("a@2", 1));
        assertThat(ended).containsExactly("a");
        assertThat(fetched.takeStopped("a")).as("stopped, not finished").isTrue();
    }

    @Test
    void aCaughtUpChannelStopsOnlyOnceTheEndIsPastTheGrace() throws Exception {
        server.channel("b", ChannelType.STREAM).append("b", 10, 11); // open: never finishes
        ChannelSplit b = new ChannelSplit("b", ChannelType.STREAM, ChannelPosition.at("b@0"));
        Instant now = Instant.now();

        FetchedChannels future = new FetchedChannels();
        ChannelSplitReader notYet = boundedAt(now.plusSeconds(3600), future);
        notYet.handleSplitsChanges(new SplitsAddition<>(List.of(b)));
        List<Taken> records = new ArrayList<>();
        assertThat(drain(notYet, records)).isEmpty();
        assertThat(records).hasSize(2);
        assertThat(future.millisBehindLatest("b")).hasValue(0); // caught up

        FetchedChannels past = new FetchedChannels();
        ChannelSplitReader ended = boundedAt(now.minus(ChannelSplitReader.STOP_GRACE), past);
        ended.handleSplitsChanges(new SplitsAddition<>(List.of(b)));
        records.clear();
        assertThat(drain(ended, records)).containsExactly("b");
        assertThat(records).hasSize(2);
        assertThat(past.takeStopped("b")).isTrue();
    }

    @Test
    void aChannelThatFinishesBeforeTheEndIsFinishedNotStopped() throws Exception {
        FetchedChannels fetched = new FetchedChannels();
        ChannelSplitReader bounded = boundedAt(Instant.ofEpochMilli(5000), fetched);
        bounded.handleSplitsChanges(
                new SplitsAddition<>(List.of(split(ChannelPosition.at("a@0")))));

        List<Taken> records = new ArrayList<>();
        assertThat(drain(bounded, records)).containsExactly("a");

        assertThat(records).hasSize(5);
        assertThat(records.get(4).after()).isEqualTo(ChannelPosition.finished());
        assertThat(fetched.takeStopped("a")).isFalse();
    }

    @Test
    void theNextChannelsPageIsRequestedWhileTheEngineHandlesThisOne() throws Exception {
        server.channel("b", ChannelType.STREAM).append("b", 10, 11).seal("b");
        ChannelSplitReader ahead =
                new ChannelSplitReader(server, () -> Optional.ofNullable(client.get()));
        ahead.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                split(ChannelPosition.at("a@0")),
                                new ChannelSplit(
                                        "b", ChannelType.STREAM, ChannelPosition.at("b@0")))));

        ahead.fetch(); // reads a@0, asks for b@0 ahead
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!server.requests().readTokens().contains("b@0")) {
            assertThat(System.nanoTime()).as("b@0 requested ahead").isLessThan(deadline);
            Thread.onSpinWait();
        }
        List<Taken> records = new ArrayList<>();
        Set<String> finished = drain(ahead, records, 2);
        ahead.close();

        assertThat(server.requests().readTokens()).containsOnlyOnce("b@0");
        assertThat(finished).containsExactlyInAnyOrder("a", "b");
        assertThat(records)
                .extracting(r -> RecordStrings.render(r.record()))
                .containsExactly(
                        "PUT id=10 v='v10'",
                        "PUT id=11 v='v11'",
                        "PUT id=3 v='v3'",
                        "PUT id=4 v='v4'",
                        "PUT id=5 v='v5'");
    }

    private ChannelSplitReader boundedAt(Instant stopAt, FetchedChannels fetched) {
        return new ChannelSplitReader(
                server, () -> Optional.ofNullable(client.get()), fetched, Optional.of(stopAt));
    }

    private Set<String> drain(List<Taken> records) throws Exception {
        return drain(reader, records);
    }

    private static Set<String> drain(ChannelSplitReader reader, List<Taken> records)
            throws Exception {
        return drain(reader, records, 1);
    }

    /** Fetches (at most 20 times) until {@code splits} splits ended. */
    private static Set<String> drain(ChannelSplitReader reader, List<Taken> records, int splits)
            throws Exception {
        Set<String> finished = new java.util.TreeSet<>();
        for (int i = 0; i < 20 && finished.size() < splits; i++) {
            RecordsWithSplitIds<ChannelRecord> batch = reader.fetch();
            while (batch.nextSplit() != null) {
                ChannelRecord r;
                while ((r = batch.nextRecordFromSplit()) != null) {
                    records.add(new Taken(r.record(), r.positionAfter()));
                }
            }
            finished.addAll(batch.finishedSplits());
        }
        return finished;
    }

    /** What the emitter would see of one record: the change and the position after it. */
    private record Taken(ChangeRecord record, ChannelPosition after) {}

    private static ChannelSplit split(ChannelPosition position) {
        return new ChannelSplit("a", ChannelType.STREAM, position);
    }
}
