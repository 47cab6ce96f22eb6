package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.OwnershipConflictException;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The owner lease both engines keep (invariant 8). */
class OwnerLeaseKeeperTest {

    private final ManualClock wall = new ManualClock(1_700_000_000_000L);
    private final TunnelMeta store =
            new MetaTable(new InMemoryMetaTableClient(), wall).tunnel("tunnel");
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aSecondConsumerIsRefusedWhileTheLeaseLives() {
        keeper("query-1");

        assertThatThrownBy(() -> keeper("job-2"))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining("query-1");
    }

    @Test
    void renewalKeepsTheLeaseBeyondItsFirstTerm() {
        OwnerLeaseKeeper keeper = keeper("query-1");
        for (int i = 0; i < 10; i++) {
            advance(OwnerLeaseKeeper.RENEW_EVERY.toMillis());
            keeper.renewIfDue();
        }

        assertThatThrownBy(() -> keeper("job-2")).isInstanceOf(OwnershipConflictException.class);
        assertThat(keeper.heldElsewhere()).isEmpty();
    }

    @Test
    void aLeaseCountsAsRenewedUntilTwoRenewalPeriodsPassWithoutARenewal() {
        OwnerLeaseKeeper keeper = keeper("query-1");
        advance(OwnerLeaseKeeper.RENEW_EVERY.toMillis());
        keeper.renewIfDue();
        OwnerLease lease = store.owner().orElseThrow();

        assertThat(OwnerLeaseKeeper.lastRenewal(lease)).isEqualTo(wall.instant());
        assertThat(OwnerLeaseKeeper.isRenewing(lease, wall.instant())).isTrue();

        advance(OwnerLeaseKeeper.RENEW_EVERY.multipliedBy(2).toMillis() - 1);
        assertThat(OwnerLeaseKeeper.isRenewing(lease, wall.instant())).isTrue();

        advance(1);
        assertThat(OwnerLeaseKeeper.isRenewing(lease, wall.instant())).isFalse();
        assertThat(lease.expiresAtMillis()).isGreaterThan(wall.millis());
    }

    @Test
    void renewIfDueWritesNothingBeforeItIsDue() {
        OwnerLeaseKeeper keeper = keeper("query-1");
        long before = store.owner().orElseThrow().epoch();

        advance(OwnerLeaseKeeper.RENEW_EVERY.toMillis() - 1);
        keeper.renewIfDue();

        assertThat(store.owner().orElseThrow().epoch()).isEqualTo(before);
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheOldOwnerLearnsItLostIt() {
        OwnerLeaseKeeper first = keeper("query-1");
        advance(OwnerLeaseKeeper.LEASE.toMillis() + 1);
        keeper("job-2");

        assertThat(first.heldElsewhere()).contains("consumer 'job-2' holds it now");
        assertThatThrownBy(first::renew).isInstanceOf(OwnershipLostException.class);
        first.release(); // a lost lease is the new owner's: releasing leaves it alone
        assertThat(store.owner().orElseThrow().consumerId()).isEqualTo("job-2");
    }

    @Test
    void releaseLetsTheNextConsumerStartAtOnce() {
        keeper("query-1").release();

        assertThat(keeper("job-2").heldElsewhere()).isEmpty();
    }

    @Test
    void thePredecessorsRecordedClientIsShutDown() {
        FakeTunnelService server = FakeTunnelService.streamTunnel();
        OwnerLeaseKeeper first = keeper("query-1");
        first.recordClient(new TunnelClientId("tunnel", "client-old"));
        first.release();

        keeper("query-1").shutDownPredecessorClient(server);

        assertThat(server.requests().calls()).contains("shutdown");
    }

    private OwnerLeaseKeeper keeper(String consumerId) {
        return OwnerLeaseKeeper.acquire(store, consumerId, nanos::get);
    }

    private void advance(long millis) {
        wall.advance(millis);
        nanos.addAndGet(millis * 1_000_000L);
    }
}
