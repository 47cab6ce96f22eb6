package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.manyChannels;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Purging a tunnel's old snapshots (invariant 7). */
class RetentionTest {

    private static final String TUNNEL = TestSnapshots.TUNNEL;
    private static final BatchToken T1 = TestSnapshots.T1;
    private static final BatchToken T2 = TestSnapshots.T2;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(table, clock);
    private final TunnelMeta tunnel = meta.tunnel(TUNNEL);

    private List<BatchToken> seedBatches(int count, int channels) {
        List<BatchToken> tokens = new ArrayList<>();
        for (int seq = 0; seq < count; seq++) {
            BatchToken token = BatchToken.random();
            tunnel.seed(manyChannels(token, channels), seq);
            tokens.add(token);
        }
        return tokens;
    }

    @Test
    void purgeKeepsExactlyTheNewestBatches() {
        List<BatchToken> tokens = seedBatches(10, 3);

        PurgeResult result = tunnel.purge(3);

        assertThat(result).isEqualTo(new PurgeResult(7, 7 * 5, 0));
        assertThat(tunnel.batchLog())
                .extracting(LoggedBatch::token)
                .containsExactlyElementsOf(tokens.subList(7, 10));
        for (BatchToken kept : tokens.subList(7, 10)) {
            assertThat(tunnel.read(kept).channels()).hasSize(3);
        }
        for (BatchToken gone : tokens.subList(0, 7)) {
            assertThat(table.rowsUnder(TUNNEL, gone.toString())).isEmpty();
        }
        assertThat(tunnel.purge(3)).isEqualTo(new PurgeResult(0, 0, 0));
    }

    @Test
    void purgeBoundsItsRequestsAndFinishesOnLaterCalls() {
        List<BatchToken> tokens = seedBatches(20, 450);
        table.resetCounts();

        PurgeResult first = tunnel.purge(2, 5);

        assertThat(first.snapshotsDeleted()).isEqualTo(5);
        assertThat(first.snapshotsRemaining()).isEqualTo(13);
        assertThat(table.batchSizes()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(200));
        // one log read, then per snapshot: one range read, three row batches, the log row
        assertThat(table.totalRequests()).isEqualTo(1 + 5 * (1 + 3 + 1));

        while (tunnel.purge(2, 5).snapshotsRemaining() > 0) {
            // drain
        }
        assertThat(tunnel.batchLog())
                .extracting(LoggedBatch::token)
                .containsExactlyElementsOf(tokens.subList(18, 20));
        assertThat(table.allRows()).hasSize(2 * (450 + 2));
    }

    @Test
    void purgeKeepsEveryTokenOfAKeptBatchSequence() {
        tunnel.seed(snapshot(T1, reading("a", 1)), 4);
        BatchToken orphanOf5 = BatchToken.random();
        tunnel.seed(snapshot(orphanOf5, reading("a", 2)), 5);
        tunnel.seed(snapshot(T2, reading("a", 2)), 5);

        tunnel.purge(1);

        assertThat(tunnel.batchLog()).extracting(LoggedBatch::sequence).containsExactly(5L, 5L);
        assertThat(tunnel.read(T2).channels()).hasSize(1);
        assertThatThrownBy(() -> tunnel.read(T1)).isInstanceOf(SnapshotNotFoundException.class);
    }

    @Test
    void purgeAfterAHandoverKeepsTheNewConsumersBatchesBelowItsPredecessorsNumbers() {
        List<BatchToken> flink = seedBatchesFrom(9_000, 3); // a Flink job's last checkpoints
        List<BatchToken> spark = seedBatchesFrom(0, 4); // then a Spark query from batch 0

        tunnel.purge(2);

        // Spark's newest two survive although 9000-9002 are larger numbers; the predecessor's
        // newest two by number are kept as well (nothing ranks them old by both rules yet).
        assertThat(tunnel.batchLog())
                .extracting(LoggedBatch::token)
                .containsExactlyInAnyOrder(flink.get(1), flink.get(2), spark.get(2), spark.get(3));
        assertThat(tunnel.read(spark.get(3)).channels()).hasSize(1);
    }

    @Test
    void purgeAfterAHandoverKeepsTheNewConsumersSmallerNumbersWritten() {
        seedBatchesFrom(5_000, 4); // a Spark query's last batches
        List<BatchToken> flink = seedBatchesFrom(1, 3); // then a Flink job from checkpoint 1

        tunnel.purge(3);

        assertThat(tunnel.batchLog()).extracting(LoggedBatch::token).containsAll(flink).hasSize(6);
    }

    @Test
    void purgeKeepsTheNewestNumbersWhenTheClockWasSetBack() {
        List<BatchToken> tokens = seedBatchesFrom(0, 3);
        clock.advance(-3_600_000L);
        tokens.addAll(seedBatchesFrom(3, 2));

        tunnel.purge(2);

        assertThat(tunnel.batchLog())
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
            tunnel.seed(snapshot(token, reading("a", (int) (seq % 1000) + 1)), seq);
            tokens.add(token);
        }
        return tokens;
    }

    @Test
    void purgeRefusesToKeepNothing() {
        assertThatThrownBy(() -> tunnel.purge(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keeps at least 1 batch");
    }

    @Test
    void purgeLeavesOtherTunnelsAlone() {
        seedBatches(3, 2);
        TunnelMeta other = new MetaTable(table, clock).tunnel("tunnel-2");
        BatchSnapshot otherSnapshot =
                new BatchSnapshot("tunnel-2", T1, Map.of("x", reading("x", 1)));
        other.seed(otherSnapshot, 0);
        tunnel.purge(1);
        assertThat(meta.tunnel("tunnel-2").read(T1)).isEqualTo(otherSnapshot);
    }

    @Test
    void whileTheLogHoldsNoMoreThanTheKeptBatchesAPurgeReadsNothing() {
        batches(0, 3);
        table.resetCounts();

        assertThat(tunnel.purge(5)).isEqualTo(new PurgeResult(0, 0, 0));
        assertThat(table.totalRequests()).as("the first purge reads the log").isEqualTo(1);

        batches(3, 2); // 5 batches: all kept
        table.resetCounts();
        assertThat(tunnel.purge(5)).isEqualTo(new PurgeResult(0, 0, 0));
        assertThat(table.totalRequests()).as("3 left + 2 logged since <= 5").isZero();

        List<BatchToken> sixth = batches(5, 1); // the oldest expires
        table.resetCounts();
        PurgeResult purged = tunnel.purge(5);

        assertThat(purged.snapshotsDeleted()).isEqualTo(1);
        assertThat(table.requests("GetRange")).isPositive();
        assertThat(tunnel.batchLog())
                .hasSize(5)
                .extracting(LoggedBatch::token)
                .contains(sixth.get(0));
        table.resetCounts();
        assertThat(tunnel.purge(5)).isEqualTo(new PurgeResult(0, 0, 0));
        assertThat(table.totalRequests()).isZero();
    }

    @Test
    void aHandleThatDidNotWriteTheBatchesReadsTheLogAtItsFirstPurge() {
        batches(0, 6);
        tunnel.purge(6); // this handle knows 6 sequences
        TunnelMeta next = new MetaTable(table, clock).tunnel(TUNNEL); // e.g. after a restart
        next.seed(manyChannels(BatchToken.random(), 2), 6);

        assertThat(next.purge(6).snapshotsDeleted()).isEqualTo(1);
    }

    /** {@code count} batches of 2 channels from sequence {@code first} on. */
    private List<BatchToken> batches(int first, int count) {
        List<BatchToken> tokens = new ArrayList<>();
        for (int seq = first; seq < first + count; seq++) {
            BatchToken token = BatchToken.random();
            tunnel.seed(manyChannels(token, 2), seq);
            tokens.add(token);
        }
        return tokens;
    }
}
