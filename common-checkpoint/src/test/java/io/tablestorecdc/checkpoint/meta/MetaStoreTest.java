package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MetaStoreTest {

    private static final String TUNNEL = "tunnel-1";
    private static final BatchToken T1 = BatchToken.parse("11111111-1111-4111-8111-111111111111");
    private static final BatchToken T2 = BatchToken.parse("22222222-2222-4222-8222-222222222222");

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaStore store = new MetaStore(table, clock);

    static ChannelCheckpoint reading(String id, int n) {
        return new ChannelCheckpoint(
                id,
                ChannelType.STREAM,
                ChannelLifecycle.READING,
                ChannelPosition.at("token-" + id + "-" + n, n),
                7 + n,
                ChannelPosition.at("adopted-" + id, 2),
                new SequenceInfo(3, 1_234_567_890_123L + n, 9));
    }

    static BatchSnapshot snapshot(BatchToken token, ChannelCheckpoint... entries) {
        Map<String, ChannelCheckpoint> map = new LinkedHashMap<>();
        for (ChannelCheckpoint c : entries) {
            map.put(c.channelId(), c);
        }
        return new BatchSnapshot(TUNNEL, token, map);
    }

    static BatchSnapshot manyChannels(BatchToken token, int count) {
        return snapshot(
                token,
                IntStream.range(0, count)
                        .mapToObj(i -> reading(String.format("ch-%04d", i), i))
                        .toArray(ChannelCheckpoint[]::new));
    }

    // ---- snapshots: round trip, first writer wins ----

    @Test
    void theLastConnectedTunnelClientIsRecordedPerTunnel() {
        assertThat(store.lastTunnelClient(TUNNEL)).isEmpty();

        store.recordTunnelClient(TUNNEL, "client-1");
        store.recordTunnelClient(TUNNEL, "client-1");
        assertThat(store.lastTunnelClient(TUNNEL)).contains("client-1");

        store.recordTunnelClient(TUNNEL, "client-2");
        assertThat(store.lastTunnelClient(TUNNEL)).contains("client-2");
        assertThat(store.lastTunnelClient("another-tunnel")).isEmpty();
    }

    @Test
    void aSingleFilledEntryIsFoundBeforeTheSnapshotIsComplete() {
        store.carryForward(TUNNEL, T2, 1, List.of("a", "b"), List.of());
        store.fill(TUNNEL, T2, reading("a", 4));

        assertThat(store.entry(TUNNEL, T2, "a")).contains(reading("a", 4));
        assertThat(store.entry(TUNNEL, T2, "b")).isEmpty();
        assertThat(store.entry(TUNNEL, T1, "a")).isEmpty();
    }

    @Test
    void theFirstAdoptionOfAChannelIsKeptAcrossLaterAdoptionsAndSnapshots() {
        ChannelCheckpoint first =
                ChannelCheckpoint.adopted("a", ChannelType.STREAM, ChannelPosition.at("first-a"));
        ChannelCheckpoint later =
                ChannelCheckpoint.adopted("a", ChannelType.STREAM, ChannelPosition.at("later-a"));
        ChannelCheckpoint other =
                ChannelCheckpoint.adopted(
                        "b", ChannelType.STREAM, ChannelPosition.at("first-b", 3));

        store.recordAdoptions(TUNNEL, List.of(first));
        store.recordAdoptions(TUNNEL, List.of(later, other));
        store.seed(snapshot(T1, reading("a", 1)), 0);

        assertThat(store.adoptions(TUNNEL))
                .containsOnly(
                        Map.entry("a", ChannelPosition.at("first-a")),
                        Map.entry("b", ChannelPosition.at("first-b", 3)));
        assertThat(store.adoptions("another-tunnel")).isEmpty();
        assertThat(store.read(TUNNEL, T1).channels()).containsOnlyKeys("a");
    }

    @Test
    void adoptionsOfManyChannelsAreWrittenInBoundedBatches() {
        List<ChannelCheckpoint> adopted =
                IntStream.range(0, 450)
                        .mapToObj(
                                i ->
                                        ChannelCheckpoint.adopted(
                                                "ch-" + i,
                                                ChannelType.STREAM,
                                                ChannelPosition.at("t-" + i)))
                        .collect(Collectors.toList());

        store.recordAdoptions(TUNNEL, adopted);

        assertThat(store.adoptions(TUNNEL)).hasSize(450);
    }

    @Test
    void aSeededSnapshotReadsBackWithEveryField() {
        BatchSnapshot seeded =
                snapshot(
                        T1,
                        reading("a", 1),
                        ChannelCheckpoint.adopted(
                                "b", ChannelType.BASE_DATA, ChannelPosition.at("server-b", 0)),
                        reading("c", 5)
                                .advancedTo(
                                        ChannelPosition.finished(),
                                        12,
                                        new SequenceInfo(4, 99L, 1)));
        store.seed(seeded, 0);

        BatchSnapshot read = store.read(TUNNEL, T1);

        assertThat(read).isEqualTo(seeded);
        assertThat(read.channel("c").orElseThrow().lifecycle())
                .isEqualTo(ChannelLifecycle.FINISHED);
        assertThat(read.channel("b").orElseThrow().lastSequence()).isEqualTo(SequenceInfo.NONE);
    }

    @Test
    void anEmptySnapshotIsStillASnapshot() {
        store.seed(snapshot(T1), 0);
        assertThat(store.read(TUNNEL, T1).channels()).isEmpty();
    }

    @Test
    void seedingTheSameSnapshotAgainIsANoOp() {
        store.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        clock.advance(5_000);
        store.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        assertThat(store.read(TUNNEL, T1))
                .isEqualTo(snapshot(T1, reading("a", 1), reading("b", 2)));
    }

    @Test
    void seedingADifferentEntryUnderTheSameTokenFails() {
        store.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        assertThatThrownBy(() -> store.seed(snapshot(T1, reading("a", 1), reading("b", 9)), 3))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("Channel b")
                .hasMessageContaining(T1.toString())
                .hasMessageContaining("second consumer");
        assertThat(store.read(TUNNEL, T1).channel("b")).contains(reading("b", 2));
    }

    @Test
    void declaringADifferentChannelListUnderTheSameTokenFails() {
        store.seed(snapshot(T1, reading("a", 1)), 3);
        assertThatThrownBy(() -> store.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("[a]")
                .hasMessageContaining("[a, b]");
    }

    @Test
    void channelIdsThatCollideWithReservedKeysAreRefused() {
        assertThatThrownBy(() -> store.seed(snapshot(T1, reading("!owner", 1)), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not start with '!'");
        assertThatThrownBy(() -> store.fill(TUNNEL, T1, reading("a,b", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("','");
    }

    // ---- fills ----

    @Test
    void aPlannedBatchIsCompleteOnceEveryReaderHasFilled() {
        store.carryForward(TUNNEL, T2, 1, Set.of("a", "b", "c"), List.of(reading("c", 0)));
        assertThatThrownBy(() -> store.read(TUNNEL, T2))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("2 of 3 channels have no entry: [a, b]");

        store.fill(TUNNEL, T2, reading("a", 1));
        store.fill(TUNNEL, T2, reading("b", 2));

        assertThat(store.read(TUNNEL, T2))
                .isEqualTo(snapshot(T2, reading("a", 1), reading("b", 2), reading("c", 0)));
    }

    @Test
    void anIdenticalSecondFillIsANoOp() {
        store.carryForward(TUNNEL, T2, 1, Set.of("a"), List.of());
        store.fill(TUNNEL, T2, reading("a", 1));
        store.fill(TUNNEL, T2, reading("a", 1));
        assertThat(store.read(TUNNEL, T2).channel("a")).contains(reading("a", 1));
    }

    @Test
    void aDifferentSecondFillFailsAndTheFirstStays() {
        store.carryForward(TUNNEL, T2, 1, Set.of("a"), List.of());
        store.fill(TUNNEL, T2, reading("a", 1));

        assertThatThrownBy(() -> store.fill(TUNNEL, T2, reading("a", 4)))
                .isInstanceOfSatisfying(
                        ConflictingFillException.class,
                        e -> assertThat(e.recorded()).isEqualTo(reading("a", 1)))
                .hasMessageContaining("Channel a of tunnel " + TUNNEL)
                .hasMessageContaining(T2.toString())
                .hasMessageContaining(reading("a", 1).position().toString())
                .hasMessageContaining(reading("a", 4).position().toString())
                .hasMessageContaining("retry it as a replay");
        assertThat(store.read(TUNNEL, T2).channel("a")).contains(reading("a", 1));
    }

    // ---- reading errors ----

    @Test
    void aMissingSnapshotNamesTheTokenTheTableAndTheFix() {
        store.seed(snapshot(T1, reading("a", 1)), 0);
        assertThatThrownBy(() -> store.read(TUNNEL, T2))
                .isInstanceOf(SnapshotNotFoundException.class)
                .hasMessageContaining(T2.toString())
                .hasMessageContaining("fake_meta")
                .hasMessageContaining("purged")
                .hasMessageContaining("different meta table")
                .hasMessageContaining("meta.table");
    }

    @Test
    void entriesWithoutAManifestAreReportedAsIncomplete() {
        store.seed(snapshot(T1, reading("a", 1)), 0);
        table.removeRaw(MetaRowFormat.manifestKey(TUNNEL, T1));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("no manifest");
    }

    @Test
    void anEntryTheManifestDoesNotListIsReported() {
        store.carryForward(TUNNEL, T2, 1, Set.of("a"), List.of(reading("a", 0)));
        store.fill(TUNNEL, T2, reading("stray", 1));
        assertThatThrownBy(() -> store.read(TUNNEL, T2))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("does not list: [stray]");
    }

    @Test
    void aRowOfANewerFormatAsksForAnUpgrade() {
        store.seed(snapshot(T1, reading("a", 1)), 0);
        MetaRowKey key = MetaRowFormat.entryKey(TUNNEL, T1, "a");
        table.putRaw(table.get(key).orElseThrow().with("format_version", 3L));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining("format_version 3")
                .hasMessageContaining(key.toString())
                .hasMessageContaining("Upgrade the connector");
    }

    @Test
    void anUnparseableColumnNamesTheRowAndTheColumn() {
        store.seed(snapshot(T1, reading("a", 1)), 0);
        MetaRowKey key = MetaRowFormat.entryKey(TUNNEL, T1, "a");
        MetaRow good = table.get(key).orElseThrow();

        table.putRaw(good.with("lifecycle", "X"));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining(key.toString())
                .hasMessageContaining("column lifecycle")
                .hasMessageContaining("Unknown channel lifecycle code 'X'");

        table.putRaw(good.with("skip", "seven"));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining("column skip: expected an INTEGER but found STRING 'seven'");

        table.putRaw(good.with("seq_row", new MetaValue.Other("DOUBLE")));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .hasMessageContaining("column seq_row: expected an INTEGER but found DOUBLE");

        MetaRow withoutToken = new MetaRow(key, new LinkedHashMap<>(good.columns()));
        Map<String, MetaValue> columns = new LinkedHashMap<>(withoutToken.columns());
        columns.remove("token");
        table.putRaw(new MetaRow(key, columns));
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .hasMessageContaining("column token: the column is missing");
    }

    // ---- batched fills and lookups ----

    @Test
    void fillAllWritesEveryEntryAndAnIdenticalRewriteIsANoOp() {
        store.carryForward(TUNNEL, T2, 1, List.of("a", "b", "c"), List.of());
        store.fill(TUNNEL, T2, reading("b", 2));

        store.fillAll(TUNNEL, T2, List.of(reading("a", 1), reading("b", 2), reading("c", 3)));
        store.fillAll(TUNNEL, T2, List.of(reading("a", 1), reading("b", 2), reading("c", 3)));

        assertThat(store.read(TUNNEL, T2))
                .isEqualTo(snapshot(T2, reading("a", 1), reading("b", 2), reading("c", 3)));
    }

    @Test
    void fillAllFailsOnAConflictingRowAndKeepsTheFirstWriters() {
        store.carryForward(TUNNEL, T2, 1, List.of("a", "b"), List.of());
        store.fill(TUNNEL, T2, reading("b", 2));

        assertThatThrownBy(
                        () -> store.fillAll(TUNNEL, T2, List.of(reading("a", 1), reading("b", 5))))
                .isInstanceOf(ConflictingFillException.class)
                .hasMessageContaining("b");
        assertThat(store.entry(TUNNEL, T2, "b")).contains(reading("b", 2));
        assertThat(store.entry(TUNNEL, T2, "a")).contains(reading("a", 1));
    }

    @Test
    void fillAllSplitsMoreThan200RowsIntoBoundedRequests() {
        List<ChannelCheckpoint> ends = new ArrayList<>(manyChannels(T2, 450).channels().values());
        table.resetCounts();

        store.fillAll(TUNNEL, T2, ends);

        assertThat(table.batchSizes()).containsExactly(200, 200, 50);
        assertThat(table.totalRequests()).isEqualTo(3);
        assertThat(store.entries(TUNNEL, T2, List.of("ch-0000", "ch-0449")))
                .containsOnlyKeys("ch-0000", "ch-0449");
    }

    @Test
    void entriesOfAGroupOfChannelsAreLookedUpWithOneRangeRead() {
        store.seed(manyChannels(T1, 1000), 0);
        table.resetCounts();

        Map<String, ChannelCheckpoint> found =
                store.entries(TUNNEL, T1, List.of("ch-0100", "ch-0101", "ch-0300", "nope"));

        assertThat(found).containsOnlyKeys("ch-0100", "ch-0101", "ch-0300");
        assertThat(found.get("ch-0300")).isEqualTo(reading("ch-0300", 300));
        assertThat(table.totalRequests()).isEqualTo(1);
        assertThat(store.entries(TUNNEL, T2, List.of("ch-0100"))).isEmpty();
    }

    // ---- request counts ----

    @Test
    void aThousandChannelSnapshotIsWrittenInBatchesAndReadInOneRequest() {
        store.seed(manyChannels(T1, 1000), 0);

        assertThat(table.batchSizes())
                .hasSize(5)
                .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(200));
        assertThat(table.totalRequests()).isEqualTo(5 + 2);

        table.resetCounts();
        BatchSnapshot read = store.read(TUNNEL, T1);
        assertThat(read).isEqualTo(manyChannels(T1, 1000));
        assertThat(table.requests("GetRange")).isEqualTo(1);
        assertThat(table.totalRequests()).isEqualTo(1);
    }

    @Test
    void readingPagesWhenTheServerStopsEarly() {
        store.seed(manyChannels(T1, 1000), 0);
        table.serverPageLimit(300).resetCounts();
        assertThat(store.read(TUNNEL, T1)).isEqualTo(manyChannels(T1, 1000));
        assertThat(table.requests("GetRange")).isEqualTo(4);
    }

    @Test
    void reseedingAThousandChannelsChecksConflictsWithOneRangeRead() {
        store.seed(manyChannels(T1, 1000), 0);
        table.resetCounts();
        store.seed(manyChannels(T1, 1000), 0);
        assertThat(table.requests("GetRange")).isEqualTo(1);
        assertThat(table.requests("GetRow")).isEqualTo(1); // the manifest
    }

    // ---- lost responses: every write is safe to retry ----

    @Test
    void aNewTunnelClientIsRecordedWhenTheRetriedReplaceHadLanded() {
        store.recordTunnelClient(TUNNEL, "client-of-the-crashed-run");
        table.echoWrites(true);

        store.recordTunnelClient(TUNNEL, "client-of-this-run");

        assertThat(store.lastTunnelClient(TUNNEL)).contains("client-of-this-run");
    }

    @Test
    void aTunnelClientRecordedMeanwhileByAnotherConsumerIsRefused() {
        store.recordTunnelClient(TUNNEL, "client-1");
        MetaRow theirs = MetaRowFormat.clientRow(TUNNEL, "client-of-another-consumer");
        MetaStore racing =
                new MetaStore(
                        new ForwardingMetaTableClient(table) {
                            @Override
                            public boolean replaceIf(
                                    MetaRow row, String column, MetaValue expected) {
                                table.putRaw(theirs);
                                return super.replaceIf(row, column, expected);
                            }
                        });

        assertThatThrownBy(() -> racing.recordTunnelClient(TUNNEL, "client-2"))
                .isInstanceOf(MetaTableException.class)
                .hasMessageContaining("another consumer is writing this tunnel's rows");
        assertThat(store.lastTunnelClient(TUNNEL)).contains("client-of-another-consumer");
    }

    @Test
    void everyOperationSucceedsWhenTheSdkRetriesAWriteThatHadLanded() {
        table.echoWrites(true);
        store.seed(snapshot(T1, reading("a", 1)), 0);
        store.carryForward(TUNNEL, T2, 1, Set.of("a", "b"), List.of(reading("b", 0)));
        store.fill(TUNNEL, T2, reading("a", 2));
        assertThat(store.read(TUNNEL, T2))
                .isEqualTo(snapshot(T2, reading("a", 2), reading("b", 0)));

        OwnerLease lease = store.acquireOwnership(TUNNEL, "query-1", 10_000);
        OwnerLease renewed = store.renewOwnership(lease, 10_000);
        OwnerLease reacquired = store.acquireOwnership(TUNNEL, "query-1", 10_000);
        assertThat(reacquired.epoch()).isGreaterThan(renewed.epoch());
        assertThat(store.releaseOwnership(reacquired)).isTrue();
        assertThat(store.owner(TUNNEL)).isEmpty();
    }

    // ---- retention ----

    private List<BatchToken> seedBatches(int count, int channels) {
        List<BatchToken> tokens = new ArrayList<>();
        for (int seq = 0; seq < count; seq++) {
            BatchToken token = BatchToken.random();
            store.seed(manyChannels(token, channels), seq);
            tokens.add(token);
        }
        return tokens;
    }

    // ---- reading a consumer's rows for operators ----

    @Test
    void theNewestSnapshotIsTheNewestOneThatReadsBackComplete() {
        store.seed(snapshot(T1, reading("a", 1), reading("b", 1)), 1);
        clock.advance(1_000);
        store.carryForward(TUNNEL, T2, 2, List.of("a", "b"), List.of(reading("b", 1)));

        assertThat(store.newestSnapshot(TUNNEL)).map(BatchSnapshot::token).contains(T1);

        store.fill(TUNNEL, T2, reading("a", 2));

        assertThat(store.newestSnapshot(TUNNEL))
                .hasValueSatisfying(
                        s -> {
                            assertThat(s.token()).isEqualTo(T2);
                            assertThat(s.channel("a").orElseThrow().position())
                                    .isEqualTo(reading("a", 2).position());
                        });
        assertThat(store.newestSnapshot("another-tunnel")).isEmpty();
    }

    @Test
    void deletingATunnelsRowsRemovesEveryRowOfThatTunnelOnly() {
        store.seed(snapshot(T1, reading("a", 1), reading("b", 1)), 1);
        store.seed(snapshot(T2, reading("a", 2), reading("b", 2)), 2);
        store.recordAdoptions(TUNNEL, List.of(reading("a", 0)));
        store.recordTunnelClient(TUNNEL, "client-1");
        store.acquireOwnership(TUNNEL, "query-1", 60_000);
        MetaStore other = new MetaStore(table, clock);
        other.seed(new BatchSnapshot("tunnel-2", T1, Map.of("a", reading("a", 1))), 1);
        long before = table.allRows().size();

        TunnelRows counted = store.tunnelRows(TUNNEL);

        assertThat(counted).isEqualTo(new TunnelRows(TUNNEL, 2, 6, 2, 1, 2, counted.bytes()));
        assertThat(counted.rows()).isEqualTo(11);
        assertThat(counted.bytes()).isGreaterThan(11 * TUNNEL.length());
        assertThat(table.allRows()).hasSize((int) before);

        assertThat(store.deleteTunnelRows(TUNNEL)).isEqualTo(counted);

        assertThat(table.allRows()).hasSize((int) before - 11);
        assertThat(table.allRows()).allMatch(r -> r.key().tunnelId().equals("tunnel-2"));
        assertThat(store.tunnelRows(TUNNEL)).isEqualTo(new TunnelRows(TUNNEL, 0, 0, 0, 0, 0, 0));
        assertThat(store.owner(TUNNEL)).isEmpty();
    }

    @Test
    void purgeKeepsExactlyTheNewestBatches() {
        List<BatchToken> tokens = seedBatches(10, 3);

        PurgeResult result = store.purge(TUNNEL, 3);

        assertThat(result).isEqualTo(new PurgeResult(7, 7 * 5, 0));
        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::token)
                .containsExactlyElementsOf(tokens.subList(7, 10));
        for (BatchToken kept : tokens.subList(7, 10)) {
            assertThat(store.read(TUNNEL, kept).channels()).hasSize(3);
        }
        for (BatchToken gone : tokens.subList(0, 7)) {
            assertThat(table.rowsUnder(TUNNEL, gone.toString())).isEmpty();
        }
        assertThat(store.purge(TUNNEL, 3)).isEqualTo(new PurgeResult(0, 0, 0));
    }

    @Test
    void purgeBoundsItsRequestsAndFinishesOnLaterCalls() {
        List<BatchToken> tokens = seedBatches(20, 450);
        table.resetCounts();

        PurgeResult first = store.purge(TUNNEL, 2, 5);

        assertThat(first.snapshotsDeleted()).isEqualTo(5);
        assertThat(first.snapshotsRemaining()).isEqualTo(13);
        assertThat(table.batchSizes()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(200));
        // one log read, then per snapshot: one range read, three row batches, the log row
        assertThat(table.totalRequests()).isEqualTo(1 + 5 * (1 + 3 + 1));

        while (store.purge(TUNNEL, 2, 5).snapshotsRemaining() > 0) {
            // drain
        }
        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::token)
                .containsExactlyElementsOf(tokens.subList(18, 20));
        assertThat(table.allRows()).hasSize(2 * (450 + 2));
    }

    @Test
    void purgeKeepsEveryTokenOfAKeptBatchSequence() {
        store.seed(snapshot(T1, reading("a", 1)), 4);
        BatchToken orphanOf5 = BatchToken.random();
        store.seed(snapshot(orphanOf5, reading("a", 2)), 5);
        store.seed(snapshot(T2, reading("a", 2)), 5);

        store.purge(TUNNEL, 1);

        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::sequence)
                .containsExactly(5L, 5L);
        assertThat(store.read(TUNNEL, T2).channels()).hasSize(1);
        assertThatThrownBy(() -> store.read(TUNNEL, T1))
                .isInstanceOf(SnapshotNotFoundException.class);
    }

    @Test
    void purgeAfterAHandoverKeepsTheNewConsumersBatchesBelowItsPredecessorsNumbers() {
        List<BatchToken> flink = seedBatchesFrom(9_000, 3); // a Flink job's last checkpoints
        List<BatchToken> spark = seedBatchesFrom(0, 4); // then a Spark query from batch 0

        store.purge(TUNNEL, 2);

        // Spark's newest two survive although 9000-9002 are larger numbers; the predecessor's
        // newest two by number are kept as well (nothing ranks them old by both rules yet).
        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::token)
                .containsExactlyInAnyOrder(flink.get(1), flink.get(2), spark.get(2), spark.get(3));
        assertThat(store.read(TUNNEL, spark.get(3)).channels()).hasSize(1);
    }

    @Test
    void purgeAfterAHandoverKeepsTheNewConsumersSmallerNumbersWritten() {
        seedBatchesFrom(5_000, 4); // a Spark query's last batches
        List<BatchToken> flink = seedBatchesFrom(1, 3); // then a Flink job from checkpoint 1

        store.purge(TUNNEL, 3);

        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::token)
                .containsAll(flink)
                .hasSize(6);
    }

    @Test
    void purgeKeepsTheNewestNumbersWhenTheClockWasSetBack() {
        List<BatchToken> tokens = seedBatchesFrom(0, 3);
        clock.advance(-3_600_000L);
        tokens.addAll(seedBatchesFrom(3, 2));

        store.purge(TUNNEL, 2);

        assertThat(store.batchLog(TUNNEL))
                .extracting(LoggedBatch::token)
                .contains(tokens.get(3), tokens.get(4))
                .doesNotContain(tokens.get(0));
    }

    /** {@code count} one-channel snapshots numbered from {@code first}, one second apart. */
    private List<BatchToken> seedBatchesFrom(long first, int count) {
        List<BatchToken> tokens = new ArrayList<>();
        for (long seq = first; seq < first + count; seq++) {
            clock.advance(1_000L);
            BatchToken token = BatchToken.random();
            store.seed(snapshot(token, reading("a", (int) (seq % 1000) + 1)), seq);
            tokens.add(token);
        }
        return tokens;
    }

    @Test
    void purgeRefusesToKeepNothing() {
        assertThatThrownBy(() -> store.purge(TUNNEL, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keeps at least 1 batch");
    }

    @Test
    void purgeLeavesOtherTunnelsAlone() {
        seedBatches(3, 2);
        MetaStore other = new MetaStore(table, clock);
        BatchSnapshot otherSnapshot =
                new BatchSnapshot("tunnel-2", T1, Map.of("x", reading("x", 1)));
        other.seed(otherSnapshot, 0);
        store.purge(TUNNEL, 1);
        assertThat(store.read("tunnel-2", T1)).isEqualTo(otherSnapshot);
    }

    @Test
    void theBatchLogListsSnapshotsInSequenceOrder() {
        store.seed(snapshot(T2, reading("a", 1)), 10);
        clock.advance(1);
        store.seed(snapshot(T1, reading("a", 1)), 9);
        assertThat(store.batchLog(TUNNEL))
                .containsExactly(
                        new LoggedBatch(9, T1, clock.millis()),
                        new LoggedBatch(10, T2, clock.millis() - 1));
    }

    // ---- ownership ----

    @Test
    void theFirstConsumerOwnsTheTunnelAndASecondIsRefused() {
        OwnerLease lease = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        assertThat(lease.consumerId()).isEqualTo("query-1");
        assertThat(lease.epoch()).isEqualTo(1);
        assertThat(lease.expiresAtMillis()).isEqualTo(clock.millis() + 30_000);

        assertThatThrownBy(() -> store.acquireOwnership(TUNNEL, "job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining("Tunnel " + TUNNEL)
                .hasMessageContaining("'query-1'")
                .hasMessageContaining(
                        java.time.Instant.ofEpochMilli(lease.expiresAtMillis()).toString())
                .hasMessageContaining("Stop the other query/job")
                .hasMessageContaining("its own tunnel")
                .hasMessageContaining("lease release, see docs/operations.md");
        assertThat(store.owner(TUNNEL)).contains(lease);
    }

    @Test
    void theSameConsumerReacquiresAfterARestartAndTheStaleRunIsLockedOut() {
        OwnerLease first = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        clock.advance(1_000);
        OwnerLease again = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        assertThat(again.epoch()).isEqualTo(first.epoch() + 1);
        assertThat(again.expiresAtMillis()).isEqualTo(clock.millis() + 30_000);
        assertThatThrownBy(() -> store.renewOwnership(first, 30_000))
                .isInstanceOf(OwnershipLostException.class);
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheOldOwnerLearnsItLostIt() {
        OwnerLease old = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        clock.advance(29_999);
        assertThatThrownBy(() -> store.acquireOwnership(TUNNEL, "job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class);
        clock.advance(1);
        OwnerLease taken = store.acquireOwnership(TUNNEL, "job-2", 30_000);
        assertThat(taken.consumerId()).isEqualTo("job-2");

        assertThatThrownBy(() -> store.renewOwnership(old, 30_000))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("'query-1' no longer owns tunnel " + TUNNEL)
                .hasMessageContaining("consumer 'job-2' holds it now");
        assertThat(store.releaseOwnership(old)).isFalse();
        assertThat(store.owner(TUNNEL)).contains(taken);
    }

    @Test
    void renewingExtendsTheLease() {
        OwnerLease lease = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        clock.advance(20_000);
        OwnerLease renewed = store.renewOwnership(lease, 30_000);
        clock.advance(20_000);
        assertThatThrownBy(() -> store.acquireOwnership(TUNNEL, "job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class);
        assertThat(renewed.expiresAtMillis()).isEqualTo(lease.expiresAtMillis() + 20_000);
    }

    @Test
    void aReleasedTunnelIsFreeAtOnceAndAStaleHolderCannotComeBack() {
        OwnerLease first = store.acquireOwnership(TUNNEL, "query-1", 30_000);
        assertThat(store.releaseOwnership(first)).isTrue();
        assertThat(store.owner(TUNNEL)).isEmpty();

        OwnerLease second = store.acquireOwnership(TUNNEL, "job-2", 30_000);
        assertThat(second.epoch()).isGreaterThan(first.epoch() + 1);
        assertThatThrownBy(() -> store.renewOwnership(first, 30_000))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(store.owner(TUNNEL)).contains(second);
    }

    @Test
    void leaseArgumentsAreChecked() {
        assertThatThrownBy(() -> store.acquireOwnership(TUNNEL, "", 1_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("consumer id");
        assertThatThrownBy(() -> store.acquireOwnership(TUNNEL, "q", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseMillis");
    }

    @Test
    void racingConsumersNeverBothWin() throws Exception {
        for (int round = 0; round < 20; round++) {
            String tunnel = "race-" + round;
            if (round % 2 == 1) {
                // an expired owner: the racers compete for a takeover, not a first claim
                store.acquireOwnership(tunnel, "dead", 1);
                clock.advance(2);
            }
            List<String> winners = race(tunnel, 8);
            assertThat(winners).hasSize(1);
            assertThat(store.owner(tunnel).map(OwnerLease::consumerId)).contains(winners.get(0));
        }
    }

    private List<String> race(String tunnel, int racers) throws Exception {
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(racers);
        try {
            List<java.util.concurrent.Future<String>> results = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                String consumer = "consumer-" + i;
                MetaStore own = new MetaStore(table, clock);
                results.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    try {
                                        own.acquireOwnership(tunnel, consumer, 60_000);
                                        return consumer;
                                    } catch (OwnershipConflictException e) {
                                        return null;
                                    }
                                }));
            }
            start.countDown();
            List<String> winners = new ArrayList<>();
            for (java.util.concurrent.Future<String> f : results) {
                String winner = f.get(10, java.util.concurrent.TimeUnit.SECONDS);
                if (winner != null) {
                    winners.add(winner);
                }
            }
            return winners.stream().collect(Collectors.toList());
        } finally {
            pool.shutdownNow();
        }
    }
}
