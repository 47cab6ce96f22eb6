package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.manyChannels;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.snapshot;
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
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Writing a tunnel's snapshots: seeds, planned batches, fills; the first writer wins. */
class SnapshotWriterTest {

    private static final String TUNNEL = TestSnapshots.TUNNEL;
    private static final BatchToken T1 = TestSnapshots.T1;
    private static final BatchToken T2 = TestSnapshots.T2;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(table, clock);
    private final TunnelMeta tunnel = meta.tunnel(TUNNEL);

    // ---- snapshots: round trip, first writer wins ----

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
        tunnel.seed(seeded, 0);

        BatchSnapshot read = tunnel.read(T1);

        assertThat(read).isEqualTo(seeded);
        assertThat(read.channel("c").orElseThrow().lifecycle())
                .isEqualTo(ChannelLifecycle.FINISHED);
        assertThat(read.channel("b").orElseThrow().lastSequence()).isEqualTo(SequenceInfo.NONE);
    }

    @Test
    void anEmptySnapshotIsStillASnapshot() {
        tunnel.seed(snapshot(T1), 0);
        assertThat(tunnel.read(T1).channels()).isEmpty();
    }

    @Test
    void seedingTheSameSnapshotAgainIsANoOp() {
        tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        clock.advance(5_000);
        tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        assertThat(tunnel.read(T1)).isEqualTo(snapshot(T1, reading("a", 1), reading("b", 2)));
    }

    @Test
    void seedingADifferentEntryUnderTheSameTokenFails() {
        tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3);
        assertThatThrownBy(() -> tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 9)), 3))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("Channel b")
                .hasMessageContaining(T1.toString())
                .hasMessageContaining("second consumer");
        assertThat(tunnel.read(T1).channel("b")).contains(reading("b", 2));
    }

    @Test
    void declaringADifferentChannelListUnderTheSameTokenFails() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 3);
        assertThatThrownBy(() -> tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 2)), 3))
                .isInstanceOf(ConflictingSnapshotException.class)
                .hasMessageContaining("[a]")
                .hasMessageContaining("[a, b]");
    }

    @Test
    void channelIdsThatCollideWithReservedKeysAreRefused() {
        assertThatThrownBy(() -> tunnel.seed(snapshot(T1, reading("!owner", 1)), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not start with '!'");
        assertThatThrownBy(() -> tunnel.fill(T1, reading("a,b", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("','");
    }

    // ---- fills ----

    @Test
    void aPlannedBatchIsCompleteOnceEveryReaderHasFilled() {
        tunnel.carryForward(T2, 1, Set.of("a", "b", "c"), List.of(reading("c", 0)));
        assertThatThrownBy(() -> tunnel.read(T2))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessageContaining("2 of 3 channels have no entry: [a, b]");

        tunnel.fill(T2, reading("a", 1));
        tunnel.fill(T2, reading("b", 2));

        assertThat(tunnel.read(T2))
                .isEqualTo(snapshot(T2, reading("a", 1), reading("b", 2), reading("c", 0)));
    }

    @Test
    void anIdenticalSecondFillIsANoOp() {
        tunnel.carryForward(T2, 1, Set.of("a"), List.of());
        tunnel.fill(T2, reading("a", 1));
        tunnel.fill(T2, reading("a", 1));
        assertThat(tunnel.read(T2).channel("a")).contains(reading("a", 1));
    }

    @Test
    void aDifferentSecondFillFailsAndTheFirstStays() {
        tunnel.carryForward(T2, 1, Set.of("a"), List.of());
        tunnel.fill(T2, reading("a", 1));

        assertThatThrownBy(() -> tunnel.fill(T2, reading("a", 4)))
                .isInstanceOfSatisfying(
                        ConflictingFillException.class,
                        e -> assertThat(e.recorded()).isEqualTo(reading("a", 1)))
                .hasMessageContaining("Channel a of tunnel " + TUNNEL)
                .hasMessageContaining(T2.toString())
                .hasMessageContaining(reading("a", 1).position().toString())
                .hasMessageContaining(reading("a", 4).position().toString())
                .hasMessageContaining("retry it as a replay");
        assertThat(tunnel.read(T2).channel("a")).contains(reading("a", 1));
    }

    // ---- batched fills ----

    @Test
    void fillAllWritesEveryEntryAndAnIdenticalRewriteIsANoOp() {
        tunnel.carryForward(T2, 1, List.of("a", "b", "c"), List.of());
        tunnel.fill(T2, reading("b", 2));

        tunnel.fillAll(T2, List.of(reading("a", 1), reading("b", 2), reading("c", 3)));
        tunnel.fillAll(T2, List.of(reading("a", 1), reading("b", 2), reading("c", 3)));

        assertThat(tunnel.read(T2))
                .isEqualTo(snapshot(T2, reading("a", 1), reading("b", 2), reading("c", 3)));
    }

    @Test
    void fillAllFailsOnAConflictingRowAndKeepsTheFirstWriters() {
        tunnel.carryForward(T2, 1, List.of("a", "b"), List.of());
        tunnel.fill(T2, reading("b", 2));

        assertThatThrownBy(() -> tunnel.fillAll(T2, List.of(reading("a", 1), reading("b", 5))))
                .isInstanceOf(ConflictingFillException.class)
                .hasMessageContaining("b");
        assertThat(tunnel.entry(T2, "b")).contains(reading("b", 2));
        assertThat(tunnel.entry(T2, "a")).contains(reading("a", 1));
    }

    @Test
    void fillAllSplitsMoreThan200RowsIntoBoundedRequests() {
        List<ChannelCheckpoint> ends = new ArrayList<>(manyChannels(T2, 450).channels().values());
        table.resetCounts();

        tunnel.fillAll(T2, ends);

        assertThat(table.batchSizes()).containsExactly(200, 200, 50);
        assertThat(table.totalRequests()).isEqualTo(3);
        assertThat(tunnel.entries(T2, List.of("ch-0000", "ch-0449")))
                .containsOnlyKeys("ch-0000", "ch-0449");
    }

    // ---- request counts ----

    @Test
    void aThousandChannelSnapshotIsWrittenInBatchesAndReadInOneRequest() {
        tunnel.seed(manyChannels(T1, 1000), 0);

        assertThat(table.batchSizes())
                .hasSize(5)
                .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(200));
        assertThat(table.totalRequests()).isEqualTo(5 + 2);

        table.resetCounts();
        BatchSnapshot read = tunnel.read(T1);
        assertThat(read).isEqualTo(manyChannels(T1, 1000));
        assertThat(table.requests("GetRange")).isEqualTo(1);
        assertThat(table.totalRequests()).isEqualTo(1);
    }

    @Test
    void reseedingAThousandChannelsChecksConflictsWithOneRangeRead() {
        tunnel.seed(manyChannels(T1, 1000), 0);
        table.resetCounts();
        tunnel.seed(manyChannels(T1, 1000), 0);
        assertThat(table.requests("GetRange")).isEqualTo(1);
        assertThat(table.requests("GetRow")).isEqualTo(1); // the manifest
    }
}
