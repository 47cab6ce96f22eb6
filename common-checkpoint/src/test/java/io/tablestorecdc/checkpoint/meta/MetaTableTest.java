package io.tablestorecdc.checkpoint.meta;

import static io.tablestorecdc.checkpoint.meta.TestSnapshots.reading;
import static io.tablestorecdc.checkpoint.meta.TestSnapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The meta table's handle: a tunnel's rows counted and deleted, and the handle of each tunnel. */
class MetaTableTest {

    private static final String TUNNEL = TestSnapshots.TUNNEL;
    private static final BatchToken T1 = TestSnapshots.T1;
    private static final BatchToken T2 = TestSnapshots.T2;

    private final InMemoryMetaTableClient table = new InMemoryMetaTableClient();
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(table, clock);
    private final TunnelMeta tunnel = meta.tunnel(TUNNEL);

    // ---- census ----

    @Test
    void deletingATunnelsRowsRemovesEveryRowOfThatTunnelOnly() {
        tunnel.seed(snapshot(T1, reading("a", 1), reading("b", 1)), 1);
        tunnel.seed(snapshot(T2, reading("a", 2), reading("b", 2)), 2);
        tunnel.recordAdoptions(List.of(reading("a", 0)));
        tunnel.recordTunnelClient("client-1");
        tunnel.acquireOwnership("query-1", 60_000);
        TunnelMeta other = new MetaTable(table, clock).tunnel("tunnel-2");
        other.seed(new BatchSnapshot("tunnel-2", T1, Map.of("a", reading("a", 1))), 1);
        long before = table.allRows().size();

        TunnelRows counted = meta.tunnelRows(TUNNEL);

        assertThat(counted).isEqualTo(new TunnelRows(TUNNEL, 2, 6, 2, 1, 2, counted.bytes()));
        assertThat(counted.rows()).isEqualTo(11);
        assertThat(counted.bytes()).isGreaterThan(11 * TUNNEL.length());
        assertThat(table.allRows()).hasSize((int) before);

        assertThat(meta.deleteTunnelRows(TUNNEL)).isEqualTo(counted);

        assertThat(table.allRows()).hasSize((int) before - 11);
        assertThat(table.allRows()).allMatch(r -> r.key().tunnelId().equals("tunnel-2"));
        assertThat(meta.tunnelRows(TUNNEL)).isEqualTo(new TunnelRows(TUNNEL, 0, 0, 0, 0, 0, 0));
        assertThat(tunnel.owner()).isEmpty();
    }

    // ---- lost responses: every write is safe to retry ----

    @Test
    void everyOperationSucceedsWhenTheSdkRetriesAWriteThatHadLanded() {
        table.echoWrites(true);
        tunnel.seed(snapshot(T1, reading("a", 1)), 0);
        tunnel.carryForward(T2, 1, Set.of("a", "b"), List.of(reading("b", 0)));
        tunnel.fill(T2, reading("a", 2));
        assertThat(tunnel.read(T2)).isEqualTo(snapshot(T2, reading("a", 2), reading("b", 0)));

        OwnerLease lease = tunnel.acquireOwnership("query-1", 10_000);
        OwnerLease renewed = tunnel.renewOwnership(lease, 10_000);
        OwnerLease reacquired = tunnel.acquireOwnership("query-1", 10_000);
        assertThat(reacquired.epoch()).isGreaterThan(renewed.epoch());
        assertThat(tunnel.releaseOwnership(reacquired)).isTrue();
        assertThat(tunnel.owner()).isEmpty();
    }

    // ---- a tunnel's handle stays on its tunnel ----

    @Test
    void aTunnelsHandleRefusesTheSnapshotOrLeaseOfAnotherTunnel() {
        TunnelMeta other = meta.tunnel("tunnel-2");
        OwnerLease lease = tunnel.acquireOwnership("query-1", 10_000);

        assertThatThrownBy(() -> other.seed(snapshot(T1, reading("a", 1)), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("belongs to tunnel " + TUNNEL)
                .hasMessageContaining("not to tunnel tunnel-2");
        assertThatThrownBy(() -> other.renewOwnership(lease, 10_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner lease of tunnel " + TUNNEL);
        assertThatThrownBy(() -> other.releaseOwnership(lease))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(table.rowsUnder("tunnel-2", T1.toString())).isEmpty();
        assertThat(other.batchLog()).isEmpty();
        assertThat(tunnel.owner()).contains(lease);
    }
}
