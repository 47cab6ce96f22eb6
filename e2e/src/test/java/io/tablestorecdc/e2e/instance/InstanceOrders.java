package io.tablestorecdc.e2e.instance;

import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.e2e.handover.SeenChange;
import io.tablestorecdc.e2e.handover.TunnelTarget;
import io.tablestorecdc.e2e.orders.NetChange;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.e2e.orders.Workload;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An orders table under the suite's prefix with its base rows and a base-and-stream tunnel, and the
 * demo's workload of inserts, partial updates and deletes written in steps: what the engine tests
 * read, and the source their deliveries are checked against.
 */
final class InstanceOrders {

    private static final double CHANGES_PER_SECOND = 200;

    private final PrefixedTables tables;
    private final String table;
    private final String metaTable;
    private final int baseRows;
    private final Workload workload;

    private InstanceOrders(PrefixedTables tables, String table, String metaTable, int baseRows) {
        this.tables = tables;
        this.table = table;
        this.metaTable = metaTable;
        this.baseRows = baseRows;
        // Without a write retry: one change per write, as the stream carries it.
        this.workload = new Workload(tables.sync(), table, table.hashCode());
    }

    /** Creates table {@code suffix} and writes {@code baseRows} orders. */
    static InstanceOrders create(
            PrefixedTables tables, String suffix, String metaTable, int baseRows) {
        String table = tables.createTable(suffix, OrdersTable.ORDER_ID);
        InstanceOrders orders = new InstanceOrders(tables, table, metaTable, baseRows);
        orders.workload.writeBaseData(baseRows);
        return orders;
    }

    /** A base-and-stream tunnel on the table, created now: its base data is the rows so far. */
    Tunnel createTunnel(String name) {
        String id = tables.createTunnel(table, name, TunnelType.BaseAndStream);
        return new Tunnel(
                new TunnelTarget(tables.connection(), table, name, metaTable),
                id,
                workload.changes());
    }

    /** A tunnel of this table and how many changes had been written when it was created. */
    record Tunnel(TunnelTarget target, String id, long changesBefore) {}

    /** Writes about {@code seconds} worth of changes (200 a second), then returns. */
    void writeChanges(double seconds) {
        workload.runChanges(
                CHANGES_PER_SECOND, Duration.ofMillis((long) (seconds * 1000)), List.of());
    }

    /** What a tunnel created before any change carries: the base rows and every change since. */
    long expected(Tunnel tunnel) {
        if (tunnel.changesBefore() != 0) {
            throw new IllegalStateException("Tunnels are created before the first change");
        }
        return baseRows + workload.changes();
    }

    String table() {
        return table;
    }

    /**
     * The table as the distinct {@code seen} changes make it, applied in the server's order,
     * compared with the table itself: inserts, partial updates and deletes all arrived right.
     */
    TableDiff replicaDiff(Collection<SeenChange> seen) {
        TreeMap<SeenChange.Key, OrderChange> distinct = new TreeMap<>();
        seen.forEach(c -> distinct.putIfAbsent(c.key(), c.change));
        Map<String, NetChange> rows = new TreeMap<>();
        NetChange absent = new NetChange(NetChange.Kind.DELETE, Map.of(), java.util.Set.of());
        distinct.values()
                .forEach(c -> rows.put(c.orderId, rows.getOrDefault(c.orderId, absent).then(c)));
        SortedMap<String, Map<String, Object>> replica = new TreeMap<>();
        rows.forEach(
                (order, net) -> {
                    if (net.kind() == NetChange.Kind.REPLACE) {
                        replica.put(order, net.puts());
                    }
                });
        return TableDiff.between(OrdersTable.scan(tables.sync(), table), replica, 5);
    }
}
