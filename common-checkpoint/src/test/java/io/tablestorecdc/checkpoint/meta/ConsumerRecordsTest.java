package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A tunnel consumer's records: adoptions, its tunnel client, its owner lease. */
class ConsumerRecordsTest {

    private static final String TUNNEL = TestSnapshots.TUNNEL;
    private static final BatchToken T1 = TestSnapshots.T1;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(table, clock);
    private final TunnelMeta tunnel = meta.tunnel(TUNNEL);

    // ---- adoptions ----

    @Test
    void theFirstAdoptionOfAChannelIsKeptAcrossLaterAdoptionsAndSnapshots() {
        ChannelCheckpoint first =
                ChannelCheckpoint.adopted("a", ChannelType.STREAM, ChannelPosition.at("first-a"));
        ChannelCheckpoint later =
                ChannelCheckpoint.adopted("a", ChannelType.STREAM, ChannelPosition.at("later-a"));
        ChannelCheckpoint other =
                ChannelCheckpoint.adopted(
                        "b", ChannelType.STREAM, ChannelPosition.at("first-b", 3));

        tunnel.recordAdoptions(List.of(first));
        tunnel.recordAdoptions(List.of(later, other));
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);

        assertThat(tunnel.adoptions())
                .containsOnly(
                        Map.entry("a", ChannelPosition.at("first-a")),
                        Map.entry("b", ChannelPosition.at("first-b", 3)));
        assertThat(meta.tunnel("another-tunnel").adoptions()).isEmpty();
        assertThat(tunnel.read(T1).channels()).containsOnlyKeys("a");
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

        tunnel.recordAdoptions(adopted);

        assertThat(tunnel.adoptions()).hasSize(450);
    }

    // ---- the tunnel client ----

    @Test
    void theLastConnectedTunnelClientIsRecordedPerTunnel() {
        assertThat(tunnel.lastTunnelClient()).isEmpty();

        tunnel.recordTunnelClient("client-1");
        tunnel.recordTunnelClient("client-1");
        assertThat(tunnel.lastTunnelClient()).contains("client-1");

        tunnel.recordTunnelClient("client-2");
        assertThat(tunnel.lastTunnelClient()).contains("client-2");
        assertThat(meta.tunnel("another-tunnel").lastTunnelClient()).isEmpty();
    }

    @Test
    void aNewTunnelClientIsRecordedWhenTheRetriedReplaceHadLanded() {
        tunnel.recordTunnelClient("client-of-the-crashed-run");
        table.echoWrites(true);

        tunnel.recordTunnelClient("client-of-this-run");

        assertThat(tunnel.lastTunnelClient()).contains("client-of-this-run");
    }

    @Test
    void aTunnelClientRecordedMeanwhileByAnotherConsumerIsRefused() {
        tunnel.recordTunnelClient("client-1");
        MetaRow theirs = MetaRowFormat.clientRow(TUNNEL, "client-of-another-consumer");
        TunnelMeta racing =
                new MetaTable(
                                new ForwardingMetaTableClient(table) {
                                    @Override
                                    public boolean replaceIf(
                                            MetaRow row, String column, MetaValue expected) {
                                        table.putRaw(theirs);
                                        return super.replaceIf(row, column, expected);
                                    }
                                })
                        .tunnel(TUNNEL);

        assertThatThrownBy(() -> racing.recordTunnelClient("client-2"))
                .isInstanceOf(MetaTableException.class)
                .hasMessageContaining("another consumer is writing this tunnel's rows");
        assertThat(tunnel.lastTunnelClient()).contains("client-of-another-consumer");
    }

    // ---- ownership ----

    @Test
    void theFirstConsumerOwnsTheTunnelAndASecondIsRefused() {
        OwnerLease lease = tunnel.acquireOwnership("query-1", 30_000);
        assertThat(lease.consumerId()).isEqualTo("query-1");
        assertThat(lease.epoch()).isEqualTo(1);
        assertThat(lease.expiresAtMillis()).isEqualTo(clock.millis() + 30_000);

        assertThatThrownBy(() -> tunnel.acquireOwnership("job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining("Tunnel " + TUNNEL)
                .hasMessageContaining("'query-1'")
                .hasMessageContaining(
                        java.time.Instant.ofEpochMilli(lease.expiresAtMillis()).toString())
                .hasMessageContaining("Stop the other query/job")
                .hasMessageContaining("its own tunnel")
                .hasMessageContaining("lease release, see docs/operations.md");
        assertThat(tunnel.owner()).contains(lease);
    }

    @Test
    void theSameConsumerReacquiresAfterARestartAndTheStaleRunIsLockedOut() {
        OwnerLease first = tunnel.acquireOwnership("query-1", 30_000);
        clock.advance(1_000);
        OwnerLease again = tunnel.acquireOwnership("query-1", 30_000);
        assertThat(again.epoch()).isEqualTo(first.epoch() + 1);
        assertThat(again.expiresAtMillis()).isEqualTo(clock.millis() + 30_000);
        assertThatThrownBy(() -> tunnel.renewOwnership(first, 30_000))
                .isInstanceOf(OwnershipLostException.class);
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheOldOwnerLearnsItLostIt() {
        OwnerLease old = tunnel.acquireOwnership("query-1", 30_000);
        clock.advance(29_999);
        assertThatThrownBy(() -> tunnel.acquireOwnership("job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class);
        clock.advance(1);
        OwnerLease taken = tunnel.acquireOwnership("job-2", 30_000);
        assertThat(taken.consumerId()).isEqualTo("job-2");

        assertThatThrownBy(() -> tunnel.renewOwnership(old, 30_000))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("'query-1' no longer owns tunnel " + TUNNEL)
                .hasMessageContaining("consumer 'job-2' holds it now");
        assertThat(tunnel.releaseOwnership(old)).isFalse();
        assertThat(tunnel.owner()).contains(taken);
    }

    @Test
    void renewingExtendsTheLease() {
        OwnerLease lease = tunnel.acquireOwnership("query-1", 30_000);
        clock.advance(20_000);
        OwnerLease renewed = tunnel.renewOwnership(lease, 30_000);
        clock.advance(20_000);
        assertThatThrownBy(() -> tunnel.acquireOwnership("job-2", 30_000))
                .isInstanceOf(OwnershipConflictException.class);
        assertThat(renewed.expiresAtMillis()).isEqualTo(lease.expiresAtMillis() + 20_000);
    }

    @Test
    void aReleasedTunnelIsFreeAtOnceAndAStaleHolderCannotComeBack() {
        OwnerLease first = tunnel.acquireOwnership("query-1", 30_000);
        assertThat(tunnel.releaseOwnership(first)).isTrue();
        assertThat(tunnel.owner()).isEmpty();

        OwnerLease second = tunnel.acquireOwnership("job-2", 30_000);
        assertThat(second.epoch()).isGreaterThan(first.epoch() + 1);
        assertThatThrownBy(() -> tunnel.renewOwnership(first, 30_000))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(tunnel.owner()).contains(second);
    }

    @Test
    void leaseArgumentsAreChecked() {
        assertThatThrownBy(() -> tunnel.acquireOwnership("", 1_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("consumer id");
        assertThatThrownBy(() -> tunnel.acquireOwnership("q", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseMillis");
    }

    @Test
    void racingConsumersNeverBothWin() throws Exception {
        for (int round = 0; round < 20; round++) {
            String tunnelId = "race-" + round;
            if (round % 2 == 1) {
                // an expired owner: the racers compete for a takeover, not a first claim
                meta.tunnel(tunnelId).acquireOwnership("dead", 1);
                clock.advance(2);
            }
            List<String> winners = race(tunnelId, 8);
            assertThat(winners).hasSize(1);
            assertThat(meta.tunnel(tunnelId).owner().map(OwnerLease::consumerId))
                    .contains(winners.get(0));
        }
    }

    private List<String> race(String tunnelId, int racers) throws Exception {
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(racers);
        try {
            List<java.util.concurrent.Future<String>> results = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                String consumer = "consumer-" + i;
                TunnelMeta own = new MetaTable(table, clock).tunnel(tunnelId);
                results.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    try {
                                        own.acquireOwnership(consumer, 60_000);
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
