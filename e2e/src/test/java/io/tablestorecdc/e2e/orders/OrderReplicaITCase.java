package io.tablestorecdc.e2e.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import io.tablestorecdc.e2e.orders.OrderChange.Action;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The replica against the emulator: partial updates, deletes, replays, and many rows. */
class OrderReplicaITCase {

    static TablestoreEmulator emulator;
    static SyncClient client;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        client = emulator.newSyncClient();
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    @Test
    void appliesPartialUpdatesColumnByColumnAndDeletes() {
        OrderReplica replica = replica("partial");
        replica.apply(
                List.of(
                        change("a", Action.PUT)
                                .put("status", "NEW")
                                .put("note", "gift")
                                .put("qty", 1L),
                        change("b", Action.PUT).put("status", "NEW").put("amount", 9.5)));
        replica.apply(
                List.of(
                        change("a", Action.UPDATE).put("status", "PAID").delete("note"),
                        change("b", Action.DELETE),
                        change("c", Action.UPDATE).put("qty", 4L)));

        assertThat(OrdersTable.scan(client, replica.table()))
                .containsExactly(
                        Map.entry("a", Map.of("qty", 1L, "status", "PAID")),
                        Map.entry("c", Map.of("qty", 4L)));
    }

    @Test
    void replayingARunOfChangesInOrderLeavesTheSameRows() {
        OrderReplica replica = replica("replay");
        List<OrderChange> run =
                List.of(
                        change("a", Action.PUT).put("status", "NEW").put("qty", 1L),
                        change("a", Action.UPDATE).put("qty", 2L),
                        change("b", Action.PUT).put("status", "NEW"),
                        change("b", Action.DELETE),
                        change("b", Action.UPDATE).put("status", "LATE"));
        replica.apply(run);
        var once = OrdersTable.scan(client, replica.table());
        replica.apply(run.subList(1, run.size()));

        assertThat(OrdersTable.scan(client, replica.table())).isEqualTo(once);
        assertThat(once)
                .containsExactly(
                        Map.entry("a", Map.of("qty", 2L, "status", "NEW")),
                        Map.entry("b", Map.of("status", "LATE")));
    }

    @Test
    void writesMoreRowsThanOneRequestHoldsAndReadsThemBackPageByPage() {
        OrderReplica replica = replica("bulk");
        List<OrderChange> puts = new ArrayList<>();
        for (int i = 0; i < 450; i++) {
            puts.add(change(OrdersTable.orderId(i), Action.PUT).put("qty", (long) i));
        }

        assertThat(replica.apply(puts)).isEqualTo(450);
        assertThat(OrdersTable.scan(client, replica.table())).hasSize(450);
    }

    @Test
    void aMissingReplicaTableIsNamed() {
        OrderReplica replica = new OrderReplica(client, "no_such_replica");

        assertThatThrownBy(() -> replica.apply(List.of(change("a", Action.PUT).put("qty", 1L))))
                .hasMessageContaining("no_such_replica");
    }

    private static OrderReplica replica(String name) {
        OrdersTable.create(client, name);
        return new OrderReplica(client, name);
    }

    private static OrderChange change(String id, Action action) {
        return OrderChange.of(id, action, "p-0", 1);
    }
}
