package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.meta.ForwardingMetaTableClient;
import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.MetaRowKey;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Old meta snapshots are purged after Spark's commits without holding up the stream thread, and
 * still as retention says.
 */
class BackgroundPurgeTest {

    private static final String TUNNEL = "tunnel-1";
    private static final int KEEP = 2;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final GatedDeletes gated = new GatedDeletes(table);
    private final TunnelMeta store = new MetaTable(gated).tunnel(TUNNEL);
    private final BackgroundPurge purge = new BackgroundPurge(store, KEEP, "t");

    @AfterEach
    void stop() {
        gated.openGate();
        purge.close();
    }

    @Test
    void aRequestReturnsWhileThePurgeDeletesAndThePurgeKeepsTheNewestBatches() throws Exception {
        List<BatchToken> tokens = writeBatches(6);
        gated.closeGate();

        purge.request(); // would block here if it purged on the caller's thread

        assertThat(gated.deleteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(store.batchLog()).hasSize(6);
        gated.openGate();
        purge.awaitIdle(Duration.ofSeconds(10));
        assertThat(store.batchLog())
                .extracting(LoggedBatch::token)
                .containsExactly(tokens.get(4), tokens.get(5));
    }

    @Test
    void requestsMadeWhileAPurgeWaitsAreOnePurge() throws Exception {
        writeBatches(3);
        gated.closeGate();
        purge.request();
        assertThat(gated.deleteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        int readsBefore = table.requests("GetRange");

        for (int i = 0; i < 20; i++) {
            write(4 + i); // a batch each, so that each purge after the running one has work
            purge.request();
        }
        gated.openGate();
        purge.awaitIdle(Duration.ofSeconds(10));

        // the running purge, then one more for the 20 requests: one batch-log read each
        assertThat(table.requests("GetRange") - readsBefore).isEqualTo(1);
    }

    @Test
    void aRefusedMetaRequestIsLoggedAndTheNextCommitPurges() {
        writeBatches(4);
        gated.failNextDelete(new MetaTableException("the meta table is busy"));

        purge.request();
        purge.awaitIdle(Duration.ofSeconds(10));
        assertThat(store.batchLog()).hasSize(4);

        purge.request();
        Await.until(
                "purged to retention at the next commit",
                Duration.ofSeconds(10),
                () -> store.batchLog().size() == KEEP);
    }

    @Test
    void anyOtherFailureIsThrownByTheNextRequestSoTheQueryFails() {
        writeBatches(4);
        IllegalStateException taken = new IllegalStateException("the tunnel was taken over");
        gated.failNextDelete(taken);

        purge.request();
        purge.awaitIdle(Duration.ofSeconds(10));

        assertThatThrownBy(purge::request).isSameAs(taken);
        purge.request(); // thrown once; the purge after it runs
        purge.awaitIdle(Duration.ofSeconds(10));
        assertThat(store.batchLog()).hasSize(KEEP);
    }

    @Test
    void closingWaitsForThePurgeInProgress() throws Exception {
        writeBatches(5);
        gated.closeGate();
        purge.request();
        assertThat(gated.deleteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(purge::close);
        closer.start();

        closer.join(300);
        assertThat(closer.isAlive()).as("close waits for the purge").isTrue();
        gated.openGate();
        closer.join(10_000);

        assertThat(closer.isAlive()).isFalse();
        assertThat(store.batchLog()).hasSizeLessThan(5);
    }

    private List<BatchToken> writeBatches(int count) {
        List<BatchToken> tokens = new ArrayList<>();
        for (int seq = 1; seq <= count; seq++) {
            tokens.add(write(seq));
        }
        return tokens;
    }

    private BatchToken write(int seq) {
        BatchSnapshot snapshot =
                new BatchSnapshot(TUNNEL, BatchToken.random(), Map.of("p-0", entry(seq)));
        store.write(snapshot, seq, Optional.empty());
        return snapshot.token();
    }

    private static ChannelCheckpoint entry(int n) {
        return new ChannelCheckpoint(
                "p-0",
                ChannelType.STREAM,
                ChannelLifecycle.READING,
                ChannelPosition.at("token-" + n, 0),
                n,
                ChannelPosition.at("adopted", 0),
                new SequenceInfo(1, n, 0));
    }

    /** Deletes that wait while the gate is closed, or fail once as told. */
    private static final class GatedDeletes extends ForwardingMetaTableClient {
        final CountDownLatch deleteStarted = new CountDownLatch(1);
        private final AtomicReference<RuntimeException> nextFailure = new AtomicReference<>();
        private volatile CountDownLatch gate = new CountDownLatch(0);

        GatedDeletes(InMemoryMetaTableClient table) {
            super(table);
        }

        void closeGate() {
            gate = new CountDownLatch(1);
        }

        void openGate() {
            gate.countDown();
        }

        void failNextDelete(RuntimeException e) {
            nextFailure.set(e);
        }

        @Override
        public void deleteAll(List<MetaRowKey> keys) {
            RuntimeException failure = nextFailure.getAndSet(null);
            if (failure != null) {
                throw failure;
            }
            deleteStarted.countDown();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            super.deleteAll(keys);
        }
    }
}
