package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.manyChannels;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading a tunnel's snapshots back: entries, whole snapshots, the batch log, and the errors. */
class SnapshotReaderTest {

    private static final String TUNNEL = TestSnapshots.TUNNEL;
    private static final BatchToken T1 = TestSnapshots.T1;
    private static final BatchToken T2 = TestSnapshots.T2;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(table, clock);
    private final TunnelMeta tunnel = meta.tunnel(TUNNEL);

    // ---- entries ----

    @Test
    void aSingleFilledEntryIsFoundBeforeTheSnapshotIsComplete() {
        tunnel.carryForward(T2, 1, List.of("a", "b"), List.of());
        tunnel.fill(T2, reading("a", 4));

        assertThat(tunnel.entry(T2, "a")).contains(reading("a", 4));
        assertThat(tunnel.entry(T2, "b")).isEmpty();
        assertThat(tunnel.entry(T1, "a")).isEmpty();
    }

    @Test
    void entriesOfAGroupOfChannelsAreLookedUpWithOneRangeRead() {
        tunnel.seed(manyChannels(T1, 1000), 0);
        table.resetCounts();

        Map<String, ChannelCheckpoint> found =
                tunnel.entries(T1, List.of("ch-0100", "ch-0101", "ch-0300", "nope"));

        assertThat(found).containsOnlyKeys("ch-0100", "ch-0101", "ch-0300");
        assertThat(found.get("ch-0300")).isEqualTo(reading("ch-0300", 300));
        assertThat(table.totalRequests()).isEqualTo(1);
        assertThat(tunnel.entries(T2, List.of("ch-0100"))).isEmpty();
    }

    @Test
    void readingPagesWhenTheServerStopsEarly() {
        tunnel.seed(manyChannels(T1, 1000), 0);
        table.serverPageLimit(300).resetCounts();
        assertThat(tunnel.read(T1)).isEqualTo(manyChannels(T1, 1000));
        assertThat(table.requests("GetRange")).isEqualTo(4);
    }

    // ---- reading errors ----

    @Test
    void aMissingSnapshotNamesTheTokenTheTableAndTheFix() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);
        assertThatThrownBy(() -> tunnel.read(T2))
                .isInstanceOf(SnapshotNotFoundException.class)
                .hasMessageContaining(T2.toString())
                .hasMessageContaining("fake_meta")
                .hasMessageContaining("purged")
                .hasMessageContaining("different meta table")
                .hasMessageContaining("meta.table");
    }

    @Test
    void entriesWithoutAManifestAreReportedAsIncomplete() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);
        table.removeRaw(MetaRowFormat.manifestKey(TUNNEL, T1));
        assertThatThrownBy(() -> tunnel.read(T1))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("no manifest");
    }

    @Test
    void anEntryTheManifestDoesNotListIsReported() {
        tunnel.carryForward(T2, 1, Set.of("a"), List.of(reading("a", 0)));
        tunnel.fill(T2, reading("stray", 1));
        assertThatThrownBy(() -> tunnel.read(T2))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("does not list: [stray]");
    }

    @Test
    void aRowOfANewerFormatAsksForAnUpgrade() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);
        MetaRowKey key = MetaRowFormat.entryKey(TUNNEL, T1, "a");
        table.putRaw(table.get(key).orElseThrow().with("format_version", 3L));
        assertThatThrownBy(() -> tunnel.read(T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining("format_version 3")
                .hasMessageContaining(key.toString())
                .hasMessageContaining("Upgrade the connector");
    }

    @Test
    void anUnparseableColumnNamesTheRowAndTheColumn() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);
        MetaRowKey key = MetaRowFormat.entryKey(TUNNEL, T1, "a");
        MetaRow good = table.get(key).orElseThrow();

        table.putRaw(good.with("lifecycle", "X"));
        assertThatThrownBy(() -> tunnel.read(T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining(key.toString())
                .hasMessageContaining("column lifecycle")
                .hasMessageContaining("Unknown channel lifecycle code 'X'");

        table.putRaw(good.with("skip", "seven"));
        assertThatThrownBy(() -> tunnel.read(T1))
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining("column skip: expected an INTEGER but found STRING 'seven'");

        table.putRaw(good.with("seq_row", new MetaValue.Other("DOUBLE")));
        assertThatThrownBy(() -> tunnel.read(T1))
                .hasMessageContaining("column seq_row: expected an INTEGER but found DOUBLE");

        MetaRow withoutToken = new MetaRow(key, new LinkedHashMap<>(good.columns()));
        Map<String, MetaValue> columns = new LinkedHashMap<>(withoutToken.columns());
        columns.remove("token");
        table.putRaw(new MetaRow(key, columns));
        assertThatThrownBy(() -> tunnel.read(T1))
                .hasMessageContaining("column token: the column is missing");
    }

    // ---- reading a consumer's rows for operators ----

    @Test
    void theNewestSnapshotIsTheNewestOneThatReadsBackComplete() {
        tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 1)), 1);
        clock.advance(1_000);
        tunnel.carryForward(T2, 2, List.of("a", "b"), List.of(reading("b", 1)));

        assertThat(tunnel.newestSnapshot()).map(BatchSnapshot::token).contains(T1);

        tunnel.fill(T2, reading("a", 2));

        assertThat(tunnel.newestSnapshot())
                .hasValueSatisfying(
                        s -> {
                            assertThat(s.token()).isEqualTo(T2);
                            assertThat(s.channel("a").orElseThrow().position())
                                    .isEqualTo(reading("a", 2).position());
                        });
        assertThat(meta.tunnel("another-tunnel").newestSnapshot()).isEmpty();
    }

    @Test
    void theBatchLogListsSnapshotsInSequenceOrder() {
        tunnel.seed(snapshot(T2, reading("a", 1)), 10);
        clock.advance(1);
        tunnel.seed(snapshot(T1, reading("a", 1)), 9);
        assertThat(tunnel.batchLog())
                .containsExactly(
                        new LoggedBatch(9, T1, clock.millis()),
                        new LoggedBatch(10, T2, clock.millis() - 1));
    }
}
