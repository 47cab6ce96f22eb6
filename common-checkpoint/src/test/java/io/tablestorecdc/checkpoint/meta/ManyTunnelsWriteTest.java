package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The snapshots and fills of many tunnels written in shared requests: the same rows as each tunnel
 * writes alone, first-writer-wins kept, and requests that do not grow with the number of tunnels.
 */
class ManyTunnelsWriteTest {

    private static final int TUNNELS = 30;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    private static String tunnel(int i) {
        return "tunnel-" + i;
    }

    private static List<ChannelCheckpoint> channels(int tunnel, int n) {
        List<ChannelCheckpoint> out = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            out.add(reading("ch-" + tunnel + "-" + c, n));
        }
        return out;
    }

    private static List<String> ids(List<ChannelCheckpoint> entries) {
        return entries.stream().map(ChannelCheckpoint::channelId).toList();
    }

    private final List<BatchToken> seeds = new ArrayList<>();

    /** Every tunnel seeded alone, as a source's first batch is (the same tokens every call). */
    private Map<String, BatchToken> seedEach(MetaTable meta) {
        Map<String, BatchToken> seeded = new LinkedHashMap<>();
        for (int t = 0; t < TUNNELS; t++) {
            if (seeds.size() == t) {
                seeds.add(BatchToken.random());
            }
            BatchToken token = seeds.get(t);
            Map<String, ChannelCheckpoint> entries = new LinkedHashMap<>();
            channels(t, 1).forEach(c -> entries.put(c.channelId(), c));
            meta.tunnel(tunnel(t)).seed(new BatchSnapshot(tunnel(t), token, entries), 0);
            seeded.put(tunnel(t), token);
        }
        return seeded;
    }

    @Test
    void theSnapshotsOfManyTunnelsTakeAFewRequestsAndReadBackAsEachWrittenAlone() {
        MetaTable meta = new MetaTable(table, clock);
        Map<String, BatchToken> after = seedEach(meta);
        InMemoryMetaTableClient alone = new InMemoryMetaTableClient();
        MetaTable aloneMeta = new MetaTable(alone, clock);
        seedEach(aloneMeta);

        List<PreparedSnapshot> prepared = new ArrayList<>();
        Map<String, BatchToken> tokens = new HashMap<>();
        for (int t = 0; t < TUNNELS; t++) {
            List<ChannelCheckpoint> all = channels(t, 2);
            // channel 0 is read in the batch (filled later); the others are carried
            List<ChannelCheckpoint> carried = all.subList(1, all.size());
            BatchToken token = BatchToken.random();
            tokens.put(tunnel(t), token);
            prepared.add(
                    meta.tunnel(tunnel(t))
                            .prepare(
                                    token,
                                    1,
                                    Optional.of(after.get(tunnel(t))),
                                    ids(all),
                                    carried));
            aloneMeta
                    .tunnel(tunnel(t))
                    .carryForward(token, 1, Optional.of(after.get(tunnel(t))), ids(all), carried);
        }
        assertThat(table.rowCount()).as("prepared, nothing written yet").isEqualTo(TUNNELS * 6);
        table.resetCounts();

        TunnelMeta.writeAll(table, prepared);

        // the log rows, the manifests, then the 90 carried entries: one batch write each
        assertThat(table.totalRequests()).isEqualTo(3);
        assertThat(table.requests("BatchWriteRow")).isEqualTo(3);
        assertThat(table.allRows()).containsExactlyInAnyOrderElementsOf(alone.allRows());
        for (int t = 0; t < TUNNELS; t++) {
            TunnelMeta fresh = new MetaTable(table, clock).tunnel(tunnel(t));
            BatchToken token = tokens.get(tunnel(t));
            fresh.fill(token, reading("ch-" + t + "-0", 3));
            BatchSnapshot read = fresh.read(token);
            assertThat(read.channels()).hasSize(4);
            assertThat(read.channel("ch-" + t + "-1")).contains(reading("ch-" + t + "-1", 2));
            assertThat(read.channel("ch-" + t + "-0")).contains(reading("ch-" + t + "-0", 3));
        }
    }

    @Test
    void writingThePreparedSnapshotsAgainIsANoOpAndAnotherPlanUnderTheSameTokenFails() {
        MetaTable meta = new MetaTable(table, clock);
        Map<String, BatchToken> after = seedEach(meta);
        BatchToken token = BatchToken.random();
        List<ChannelCheckpoint> all = channels(0, 2);
        PreparedSnapshot first =
                meta.tunnel(tunnel(0))
                        .prepare(token, 1, Optional.of(after.get(tunnel(0))), ids(all), all);
        TunnelMeta.writeAll(table, List.of(first));
        int rows = table.rowCount();

        TunnelMeta.writeAll(table, List.of(first));
        assertThat(table.rowCount()).isEqualTo(rows);

        PreparedSnapshot other =
                new MetaTable(table, clock)
                        .tunnel(tunnel(0))
                        .prepare(token, 2, Optional.empty(), ids(all), all);
        assertThatThrownBy(() -> TunnelMeta.writeAll(table, List.of(other)))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("already declared as batch 1");

        List<ChannelCheckpoint> moved = channels(0, 5);
        PreparedSnapshot otherEntries =
                new MetaTable(table, clock)
                        .tunnel(tunnel(0))
                        .prepare(token, 1, Optional.empty(), ids(moved), moved);
        assertThatThrownBy(() -> TunnelMeta.writeAll(table, List.of(otherEntries)))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("already has the entry");
    }

    @Test
    void theEndsOfManyTunnelsAreLookedUpAndFilledTogetherAndTheFirstWriterWins() {
        BatchFills fills = new BatchFills(table);
        BatchToken token = BatchToken.random();
        List<BatchFills.Key> keys = new ArrayList<>();
        List<BatchFills.End> ends = new ArrayList<>();
        for (int t = 0; t < TUNNELS; t++) {
            for (ChannelCheckpoint c : channels(t, 4)) {
                keys.add(new BatchFills.Key(tunnel(t), token, c.channelId()));
                ends.add(new BatchFills.End(tunnel(t), token, c));
            }
        }
        assertThat(fills.recorded(keys)).isEmpty();

        fills.fillAll(ends.subList(0, 7));
        table.resetCounts();
        Map<BatchFills.Key, ChannelCheckpoint> recorded = fills.recorded(keys);

        assertThat(table.totalRequests()).as("120 keys, 100 a request").isEqualTo(2);
        assertThat(recorded).hasSize(7);
        assertThat(recorded.get(keys.get(6))).isEqualTo(ends.get(6).end());
        assertThat(new MetaTable(table).tunnel(tunnel(0)).entry(token, "ch-0-3"))
                .contains(ends.get(3).end());

        table.resetCounts();
        fills.fillAll(ends); // the first 7 again, the same: fine
        assertThat(table.requests("BatchWriteRow")).isEqualTo(1);

        ChannelCheckpoint elsewhere = reading("ch-1-0", 9);
        assertThatThrownBy(
                        () ->
                                fills.fillAll(
                                        List.of(new BatchFills.End(tunnel(1), token, elsewhere))))
                .isInstanceOf(ConflictingFillException.class)
                .hasMessageContaining("tunnel tunnel-1")
                .hasMessageContaining("The first writer wins");
    }

    @Test
    void theSnapshotsOfManyTunnelsAreReadTogetherWhereTheirManifestsAreKnown() {
        MetaTable writer = new MetaTable(table, clock);
        Map<String, BatchToken> after = seedEach(writer);
        Map<TunnelMeta, BatchToken> wanted = new LinkedHashMap<>();
        Map<TunnelMeta, BatchSnapshot> expected = new HashMap<>();
        for (int t = 0; t < TUNNELS; t++) {
            // each tunnel's own handle, as each table of a source holds one
            TunnelMeta tunnel = new MetaTable(table, clock).tunnel(tunnel(t));
            List<ChannelCheckpoint> all = channels(t, 2);
            BatchToken token = BatchToken.random();
            if (t == 0) {
                // a handle that wrote nothing under this token: read alone, by range
                writer.tunnel(tunnel(t))
                        .carryForward(token, 1, Optional.empty(), ids(all), all.subList(1, 4));
            } else {
                tunnel.carryForward(
                        token, 1, Optional.of(after.get(tunnel(t))), ids(all), all.subList(1, 4));
            }
            tunnel.fill(token, reading("ch-" + t + "-0", 7));
            wanted.put(tunnel, token);
            expected.put(tunnel, new MetaTable(table, clock).tunnel(tunnel(t)).read(token));
        }
        table.resetCounts();

        Map<TunnelMeta, BatchSnapshot> read = TunnelMeta.readAll(table, wanted);

        assertThat(read).isEqualTo(expected);
        assertThat(table.requests("BatchGetRow")).as("29 x 4 entries, 100 a request").isEqualTo(2);
        assertThat(table.requests("GetRange")).as("the one unknown manifest").isEqualTo(1);

        TunnelMeta unfilled = new MetaTable(table, clock).tunnel(tunnel(1));
        BatchToken planned = BatchToken.random();
        List<ChannelCheckpoint> all = channels(1, 3);
        unfilled.carryForward(planned, 2, Optional.empty(), ids(all), all.subList(1, 4));
        assertThatThrownBy(() -> TunnelMeta.readAll(table, Map.of(unfilled, planned)))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("ch-1-0");
    }
}
