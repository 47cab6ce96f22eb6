package io.tablestorecdc.e2e.crash;

import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.emulator.table.RowChange;
import io.tablestorecdc.emulator.table.TableAccess;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The source table's change history, recorded by the embedded emulator as it acknowledges writes:
 * what a tunnel created at {@link #tunnelCreated} must deliver, each change exactly once.
 */
final class SourceTruth implements TableAccess.TableListener {

    private final String table;
    private final List<RowChange> changes = new ArrayList<>();
    private Set<String> baseRows = Set.of();
    private int streamStart = -1;

    SourceTruth(String table) {
        this.table = table;
    }

    @Override
    public void onTableCreated(TableMeta meta) {}

    @Override
    public void onTableDeleted(String name) {}

    @Override
    public synchronized void onRowChange(RowChange change) {
        if (change.table().equals(table)) {
            changes.add(change);
        }
    }

    /**
     * The tunnel was created now, with no writes in flight: its base data is {@code rows}, its
     * stream every change from here on.
     */
    synchronized void tunnelCreated(Set<String> rows) {
        baseRows = Set.copyOf(rows);
        streamStart = changes.size();
    }

    /** Identity (see {@link DeliveredChange#identity()}) to operation of every expected change. */
    synchronized Map<String, String> expected() {
        if (streamStart < 0) {
            throw new IllegalStateException("Call tunnelCreated first");
        }
        Map<String, String> out = new LinkedHashMap<>();
        baseRows.forEach(id -> out.put("base:" + id, "PUT"));
        for (RowChange c : changes.subList(streamStart, changes.size())) {
            String id =
                    c.primaryKey().getPrimaryKeyColumn(OrdersTable.ORDER_ID).getValue().asString();
            out.put(id + "@" + c.commitTimeMicros(), c.type().name());
        }
        return out;
    }

    synchronized int streamChanges() {
        return changes.size() - streamStart;
    }
}
