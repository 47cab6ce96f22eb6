package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.manyChannels;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Meta-table format 2: delta snapshots over a full base, their reading, retention and upgrade. */
class IncrementalSnapshotTest {

    private static final String TUNNEL = "tunnel-1";

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    private TunnelMeta store(int fullEvery) {
        return new MetaTable(table, clock, fullEvery).tunnel(TUNNEL);
    }

    /** One batch of a Spark-style consumer: plan with the unread entries, then fill the read. */
    private static BatchToken batch(
            TunnelMeta store,
            long seq,
            BatchToken start,
            Map<String, ChannelCheckpoint> next,
            List<String> read) {
        BatchToken token = BatchToken.random();
        List<ChannelCheckpoint> carried = new ArrayList<>();
        List<ChannelCheckpoint> fills = new ArrayList<>();
        next.values().forEach(c -> (read.contains(c.channelId()) ? fills : carried).add(c));
        store.carryForward(token, seq, Optional.of(start), next.keySet(), carried);
        store.fillAll(token, fills);
        return token;
    }

    private static Map<String, ChannelCheckpoint> advanced(
            Map<String, ChannelCheckpoint> entries, List<String> read, int step) {
        Map<String, ChannelCheckpoint> next = new TreeMap<>();
        entries.forEach(
                (id, c) ->
                        next.put(
                                id,
                                read.contains(id)
                                        ? c.advancedTo(
                                                ChannelPosition.at("t-" + id + "-" + step, 0),
                                                step,
                                                new SequenceInfo(1, step, 0))
                                        : c.carriedForward()));
        return next;
    }

    private long rowsWritten(Runnable write) {
        int before = table.allRows().size();
        write.run();
        return table.allRows().size() - before;
    }

    @Test
    void aSparseBatchWritesOnlyTheChannelsItReadPlusTwoRows() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 1024);
        store.seed(seed, 0);
        List<String> active = List.of("ch-0003", "ch-0500", "ch-1000");
        Map<String, ChannelCheckpoint> next = advanced(seed.channels(), active, 1);

        BatchToken[] token = new BatchToken[1];
        long rows = rowsWritten(() -> token[0] = batch(store, 1, seed.token(), next, active));

        assertThat(rows).isEqualTo(active.size() + 2); // entries, manifest, batch-log row
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(token[0]).channels()).isEqualTo(next);
    }

    @Test
    void aDeltaHoldsEveryChannelThatChangedSinceItsBaseAndReadsBackInTwoRangeReads() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 100);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> one = advanced(seed.channels(), List.of("ch-0001"), 1);
        BatchToken t1 = batch(store, 1, seed.token(), one, List.of("ch-0001"));
        Map<String, ChannelCheckpoint> two = advanced(one, List.of("ch-0002"), 2);

        BatchToken t2 = batch(store, 2, t1, two, List.of("ch-0002"));

        // ch-0001 is unread in batch 2 but differs from the base: the delta carries it
        assertThat(table.rowsUnder(TUNNEL, t2.toString()))
                .extracting(r -> r.key().channelId())
                .containsExactly("!manifest", "ch-0001", "ch-0002");
        table.resetCounts();
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(t2).channels()).isEqualTo(two);
        assertThat(table.requests("GetRange")).isEqualTo(2);
    }

    @Test
    void everyKthBatchAndEveryLargeDeltaIsWrittenInFull() {
        TunnelMeta store = store(3);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 10);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> entries = seed.channels();
        BatchToken start = seed.token();
        List<Boolean> full = new ArrayList<>();
        for (int seq = 1; seq <= 6; seq++) {
            entries = advanced(entries, List.of("ch-0000"), seq);
            start = batch(store, seq, start, entries, List.of("ch-0000"));
            full.add(logged(start).base().isEmpty());
        }
        // depth 1, 2, then the third past the base is full; again for the next base
        assertThat(full).containsExactly(false, false, true, false, false, true);

        List<String> most =
                List.of("ch-0001", "ch-0002", "ch-0003", "ch-0004", "ch-0005", "ch-0006");
        Map<String, ChannelCheckpoint> wide = advanced(entries, most, 7);
        BatchToken t7 = batch(store(64), 7, start, wide, most);
        assertThat(logged(t7).base()).isEmpty(); // 6 of 10 channels: more than half
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(t7).channels()).isEqualTo(wide);
    }

    private LoggedBatch logged(BatchToken token) {
        return store(1).batchLog().stream()
                .filter(b -> b.token().equals(token))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void fullSnapshotEveryOneWritesEverySnapshotInFull() {
        TunnelMeta store = store(1);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 64);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> next = advanced(seed.channels(), List.of("ch-0001"), 1);

        long rows = rowsWritten(() -> batch(store, 1, seed.token(), next, List.of("ch-0001")));

        assertThat(rows).isEqualTo(64 + 2);
    }

    @Test
    void aFlinkStyleWriteOfAWholeSnapshotIsADeltaOverThePreviousOnesBase() {
        TunnelMeta store = store(64);
        BatchSnapshot first = manyChannels(BatchToken.random(), 40);
        store.write(first, 1, Optional.empty());
        Map<String, ChannelCheckpoint> moved = advanced(first.channels(), List.of("ch-0007"), 2);
        BatchSnapshot second = new BatchSnapshot(TUNNEL, BatchToken.random(), moved);

        long rows = rowsWritten(() -> store.write(second, 2, Optional.of(first.token())));

        assertThat(rows).isEqualTo(1 + 2);
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(second.token())).isEqualTo(second);
    }

    @Test
    void planningTheSameDeltaAgainIsANoOpAndADifferentPlanFails() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 20);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> next = advanced(seed.channels(), List.of("ch-0001"), 1);
        BatchSnapshot snapshot = new BatchSnapshot(TUNNEL, BatchToken.random(), next);
        store.write(snapshot, 1, Optional.of(seed.token()));

        // a restarted consumer (nothing in memory) plans the same rows
        new MetaTable(table, clock, 64)
                .tunnel(TUNNEL)
                .write(snapshot, 1, Optional.of(seed.token()));

        assertThatThrownBy(() -> store(64).write(snapshot, 1, Optional.empty()))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("as a delta over " + seed.token())
                .hasMessageContaining("in full");
    }

    @Test
    void aDeltaWhoseBaseIsGoneNamesTheBaseAndTheWayOut() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 20);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> next = advanced(seed.channels(), List.of("ch-0001"), 1);
        BatchToken t1 = batch(store, 1, seed.token(), next, List.of("ch-0001"));
        table.rowsUnder(TUNNEL, seed.token().toString()).forEach(r -> table.removeRaw(r.key()));

        assertThatThrownBy(() -> new MetaTable(table).tunnel(TUNNEL).read(t1))
                .isInstanceOf(SnapshotNotFoundException.class)
                .hasMessageContaining("is a delta over the full snapshot " + seed.token())
                .hasMessageContaining("start from a new checkpoint location");
    }

    @Test
    void aDeltaMissingAFillIsIncomplete() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 20);
        store.seed(seed, 0);
        BatchToken token = BatchToken.random();
        Map<String, ChannelCheckpoint> next = advanced(seed.channels(), List.of("ch-0001"), 1);
        List<ChannelCheckpoint> carried = new ArrayList<>(next.values());
        carried.removeIf(c -> c.channelId().equals("ch-0001"));
        store.carryForward(token, 1, Optional.of(seed.token()), next.keySet(), carried);

        assertThatThrownBy(() -> new MetaTable(table).tunnel(TUNNEL).read(token))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("1 of 1 channels have no entry: [ch-0001]");
    }

    // ---- retention ----

    @Test
    void purgeKeepsTheBaseOfEveryKeptDeltaAndDeletesItAfterTheDeltasOverIt() {
        TunnelMeta store = store(64);
        BatchSnapshot seed = manyChannels(BatchToken.random(), 20);
        store.seed(seed, 0);
        Map<String, ChannelCheckpoint> entries = seed.channels();
        BatchToken start = seed.token();
        List<BatchToken> tokens = new ArrayList<>(List.of(start));
        for (int seq = 1; seq <= 8; seq++) {
            clock.advance(1);
            entries = advanced(entries, List.of("ch-0003"), seq);
            start = batch(store, seq, start, entries, List.of("ch-0003"));
            tokens.add(start);
        }

        PurgeResult purged = store.purge(2);

        // batches 1..6 go; the seed (batch 0) is the base of 7 and 8 and stays
        assertThat(purged.snapshotsDeleted()).isEqualTo(6);
        assertThat(store.batchLog())
                .extracting(LoggedBatch::token)
                .containsExactly(tokens.get(0), tokens.get(7), tokens.get(8));
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(tokens.get(8)).channels())
                .isEqualTo(entries);
    }

    @Test
    void aPurgeInterruptedAtAnyRequestNeverStrandsAKeptDelta() {
        for (int crashAt = 0; crashAt < 40; crashAt++) {
            InMemoryMetaTableClient t = new InMemoryMetaTableClient();
            TunnelMeta store = new MetaTable(t, clock, 6).tunnel(TUNNEL);
            BatchSnapshot seed = manyChannels(BatchToken.random(), 6);
            store.seed(seed, 0);
            Map<String, ChannelCheckpoint> entries = seed.channels();
            BatchToken start = seed.token();
            Map<BatchToken, Map<String, ChannelCheckpoint>> committed = new TreeMap<>();
            List<BatchToken> order = new ArrayList<>();
            for (int seq = 1; seq <= 10; seq++) {
                clock.advance(1);
                entries = advanced(entries, List.of("ch-0001"), seq);
                start = batch(store, seq, start, entries, List.of("ch-0001"));
                committed.put(start, entries);
                order.add(start);
            }
            t.crashAfter(crashAt);
            try {
                store.purge(3, 2);
            } catch (MetaTableException crashed) {
                // the consumer died in the middle of the purge
            }
            t.recover();
            TunnelMeta restarted = new MetaTable(t, clock, 6).tunnel(TUNNEL);
            while (restarted.purge(3, 2).snapshotsRemaining() > 0) {
                // finish the backlog
            }
            for (BatchToken kept : order.subList(order.size() - 3, order.size())) {
                assertThat(new MetaTable(t).tunnel(TUNNEL).read(kept).channels())
                        .as("kept batch after a purge that crashed at request %d", crashAt)
                        .isEqualTo(committed.get(kept));
            }
        }
    }

    // ---- format 1 and 2 rows as stored ----

    @Test
    void formatOneRowsReadAsAFullSnapshotAndTheNextBatchIsADeltaOverThem() {
        BatchToken v1 = BatchToken.parse("11111111-1111-4111-8111-111111111111");
        table.putRaw(
                new MetaRow(
                        new MetaRowKey(TUNNEL, v1.toString(), "!manifest"),
                        InMemoryMetaTableClient.columns(
                                "format_version", 1L,
                                "channels", "a,b,c",
                                "channel_count", 3L,
                                "batch_seq", 41L,
                                "created_ms", 1_700_000_000_000L)));
        for (String id : List.of("a", "b", "c")) {
            table.putRaw(formatOneEntry(v1, id));
        }
        table.putRaw(
                new MetaRow(
                        new MetaRowKey(TUNNEL, "!batches", String.format("%019d-%s", 41, v1)),
                        InMemoryMetaTableClient.columns(
                                "format_version", 1L,
                                "token", v1.toString(),
                                "batch_seq", 41L,
                                "created_ms", 1_700_000_000_000L)));
        TunnelMeta store = new MetaTable(table, clock, 64).tunnel(TUNNEL);

        BatchSnapshot read = store.read(v1);
        assertThat(read.channels().get("b"))
                .isEqualTo(
                        new ChannelCheckpoint(
                                "b",
                                ChannelType.STREAM,
                                ChannelLifecycle.READING,
                                ChannelPosition.at("tok-b", 4),
                                12,
                                ChannelPosition.at("adopt-b", 0),
                                new SequenceInfo(2, 1_700_000_000_000_000L, 5)));
        assertThat(store.batchLog())
                .extracting(LoggedBatch::base)
                .containsExactly(Optional.empty());

        // a consumer of this build goes on from the version-1 snapshot, as a delta over it
        Map<String, ChannelCheckpoint> next = advanced(read.channels(), List.of("a"), 42);
        BatchToken t42 = batch(store, 42, v1, next, List.of("a"));
        assertThat(logged(t42).base()).contains(v1);
        assertThat(table.rowsUnder(TUNNEL, t42.toString()))
                .allSatisfy(
                        r -> assertThat(r.column("format_version")).contains(MetaValue.integer(2)));
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(t42).channels()).isEqualTo(next);
    }

    private static MetaRow formatOneEntry(BatchToken token, String id) {
        return new MetaRow(
                new MetaRowKey(TUNNEL, token.toString(), id),
                InMemoryMetaTableClient.columns(
                        "format_version", 1L,
                        "type", "stream",
                        "lifecycle", "R",
                        "token", "tok-" + id,
                        "skip", 4L,
                        "batch_records", 12L,
                        "adopted_token", "adopt-" + id,
                        "adopted_skip", 0L,
                        "seq_epoch", 2L,
                        "seq_ts", 1_700_000_000_000_000L,
                        "seq_row", 5L));
    }

    @Test
    void formatTwoDeltaRowsAsStoredReadBackOverTheirBase() {
        BatchToken base = BatchToken.parse("11111111-1111-4111-8111-111111111111");
        BatchToken delta = BatchToken.parse("22222222-2222-4222-8222-222222222222");
        table.putRaw(
                new MetaRow(
                        new MetaRowKey(TUNNEL, base.toString(), "!manifest"),
                        InMemoryMetaTableClient.columns(
                                "format_version", 2L,
                                "channels", "a,b",
                                "channel_count", 2L,
                                "batch_seq", 7L,
                                "created_ms", 1L)));
        table.putRaw(formatOneEntry(base, "a").with("format_version", 2L));
        table.putRaw(formatOneEntry(base, "b").with("format_version", 2L));
        table.putRaw(
                new MetaRow(
                        new MetaRowKey(TUNNEL, delta.toString(), "!manifest"),
                        InMemoryMetaTableClient.columns(
                                "format_version", 2L,
                                "channels", "a,b,c",
                                "channel_count", 3L,
                                "batch_seq", 8L,
                                "created_ms", 2L,
                                "base_token", base.toString(),
                                "base_depth", 1L,
                                "delta_channels", "b,c",
                                "delta_count", 2L)));
        table.putRaw(
                formatOneEntry(delta, "b")
                        .with("format_version", 2L)
                        .with("token", "tok-b-next")
                        .with("batch_records", 3L));
        table.putRaw(formatOneEntry(delta, "c").with("format_version", 2L));

        BatchSnapshot read = new MetaTable(table).tunnel(TUNNEL).read(delta);

        assertThat(read.channels()).containsOnlyKeys("a", "b", "c");
        assertThat(read.channels().get("a").position()).isEqualTo(ChannelPosition.at("tok-a", 4));
        assertThat(read.channels().get("a").batchRecords()).isZero(); // carried from the base
        assertThat(read.channels().get("b").position())
                .isEqualTo(ChannelPosition.at("tok-b-next", 4));
        assertThat(read.channels().get("b").batchRecords()).isEqualTo(3);
    }

    @Test
    void theNewOptionRefusesANonPositiveValue() {
        assertThatThrownBy(() -> new MetaTable(table, clock, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fullSnapshotEvery must be >= 1");
    }
}
