package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The requests of one snapshot's write, read and purge, sent at once. */
class ParallelMetaRequestsTest {

    private static final String TUNNEL = "tunnel-1";

    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private TunnelMeta parallel(MetaTableClient client) {
        return new MetaTable(client, clock, 1, Optional.of(pool)).tunnel(TUNNEL);
    }

    @Test
    void theChunkWritesOfOneSnapshotAreInFlightTogether() {
        Rendezvous client = new Rendezvous(table, 4, "BatchWriteRow");
        BatchSnapshot snapshot = TestSnapshots.manyChannels(BatchToken.random(), 4 * 200);

        parallel(client).seed(snapshot, 0);

        assertThat(client.metAll()).isTrue();
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(snapshot.token())).isEqualTo(snapshot);
    }

    @Test
    void aSlicedReadBackEqualsASequentialRead() {
        TunnelMeta store = parallel(table);
        BatchToken token = BatchToken.random();
        BatchSnapshot planned = TestSnapshots.manyChannels(token, 1024);
        List<ChannelCheckpoint> carried = new ArrayList<>(planned.channels().values());
        List<ChannelCheckpoint> filled = new ArrayList<>(carried.subList(0, 300));
        carried.removeAll(filled);
        store.carryForward(token, 1, planned.channels().keySet(), carried);
        new MetaTable(table).tunnel(TUNNEL).fillAll(token, filled);
        table.resetCounts();

        BatchSnapshot sliced = store.read(token);

        assertThat(table.requests("GetRange")).isEqualTo(4);
        assertThat(sliced).isEqualTo(new MetaTable(table).tunnel(TUNNEL).read(token));
        assertThat(sliced).isEqualTo(planned);
    }

    @Test
    void aMissingFillFailsTheSlicedReadAsTheSequentialOne() {
        TunnelMeta store = parallel(table);
        BatchToken token = BatchToken.random();
        BatchSnapshot planned = TestSnapshots.manyChannels(token, 1024);
        List<ChannelCheckpoint> carried = new ArrayList<>(planned.channels().values());
        carried.remove(700);
        store.carryForward(token, 1, planned.channels().keySet(), carried);

        Throwable sequential =
                org.assertj.core.api.Assertions.catchThrowable(
                        () -> new MetaTable(table).tunnel(TUNNEL).read(token));
        assertThat(sequential).isInstanceOf(IncompleteSnapshotException.class);
        assertThatThrownBy(() -> store.read(token))
                .isInstanceOf(IncompleteSnapshotException.class)
                .hasMessage(sequential.getMessage());
    }

    @Test
    void aFailedChunkWriteIsThrownAfterTheOtherWritesEndedAndAReplanWorks() {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger ended = new AtomicInteger();
        FailingOnce client = new FailingOnce(table, inFlight, ended);
        TunnelMeta store = parallel(client);
        BatchSnapshot snapshot = TestSnapshots.manyChannels(BatchToken.random(), 4 * 200);

        assertThatThrownBy(() -> store.seed(snapshot, 0))
                .isInstanceOf(MetaTableException.class)
                .hasMessageContaining("chunk write failed");
        assertThat(inFlight.get()).isZero();
        assertThat(ended.get()).isEqualTo(4);

        store.seed(snapshot, 0);
        assertThat(new MetaTable(table).tunnel(TUNNEL).read(snapshot.token())).isEqualTo(snapshot);
    }

    @Test
    void purgeDeletesAreInFlightTogether() {
        TunnelMeta writer = new MetaTable(table, clock).tunnel(TUNNEL);
        List<BatchToken> tokens = new ArrayList<>();
        for (int seq = 0; seq < 3; seq++) {
            clock.advance(1_000);
            BatchSnapshot s = TestSnapshots.manyChannels(BatchToken.random(), 4 * 200 - 1);
            writer.seed(s, seq);
            tokens.add(s.token());
        }
        Rendezvous client = new Rendezvous(table, 4, "delete");
        TunnelMeta store = parallel(client);
        table.resetCounts();

        PurgeResult purged = store.purge(2);

        assertThat(client.metAll()).isTrue();
        assertThat(purged).isEqualTo(new PurgeResult(1, 4 * 200 + 1, 0));
        assertThat(table.rowsUnder(TUNNEL, tokens.get(0).toString())).isEmpty();
        assertThat(table.requests("GetRange")).isEqualTo(1); // the batch log only
    }

    /** Holds each of the first {@code parties} writes of a kind until all are inside. */
    private static final class Rendezvous extends ForwardingMetaTableClient {
        private final CountDownLatch arrived;
        private final String kind;
        private volatile boolean timedOut;

        Rendezvous(MetaTableClient table, int parties, String kind) {
            super(table);
            this.arrived = new CountDownLatch(parties);
            this.kind = kind;
        }

        boolean metAll() {
            return arrived.getCount() == 0 && !timedOut;
        }

        private void meet(String what) {
            if (!what.equals(kind) || arrived.getCount() == 0) {
                return;
            }
            arrived.countDown();
            try {
                if (!arrived.await(5, TimeUnit.SECONDS)) {
                    timedOut = true;
                    throw new MetaTableException("the other requests were not in flight");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MetaTableException("interrupted");
            }
        }

        @Override
        public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
            meet("BatchWriteRow");
            return super.putAllIfAbsent(rows);
        }

        @Override
        public void deleteAll(List<MetaRowKey> keys) {
            if (keys.size() > 1) {
                meet("delete");
            }
            super.deleteAll(keys);
        }
    }

    /** Fails the first chunk write at once; the others take a while. */
    private static final class FailingOnce extends ForwardingMetaTableClient {
        private final AtomicInteger inFlight;
        private final AtomicInteger ended;
        private final AtomicInteger calls = new AtomicInteger();

        FailingOnce(MetaTableClient table, AtomicInteger inFlight, AtomicInteger ended) {
            super(table);
            this.inFlight = inFlight;
            this.ended = ended;
        }

        @Override
        public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
            int call = calls.incrementAndGet();
            if (call > 4) {
                return super.putAllIfAbsent(rows);
            }
            inFlight.incrementAndGet();
            try {
                if (call == 1) {
                    throw new MetaTableException("chunk write failed");
                }
                Thread.sleep(200);
                return super.putAllIfAbsent(rows);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MetaTableException("interrupted");
            } finally {
                inFlight.decrementAndGet();
                ended.incrementAndGet();
            }
        }
    }
}
