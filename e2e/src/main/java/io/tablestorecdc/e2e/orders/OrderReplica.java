package io.tablestorecdc.e2e.orders;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.RowChange;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An upsert-by-primary-key replica of the orders table in another Tablestore table: applies changes
 * in order, each row written once per call with its net change, in BatchWriteRow requests.
 *
 * <p>Idempotent per row state: re-applying a replayed run of changes in order converges to the same
 * row, so at-least-once delivery in order keeps the replica exact.
 */
public final class OrderReplica {

    /** Tablestore's limit of rows per BatchWriteRow request. */
    private static final int ROWS_PER_REQUEST = 200;

    private final SyncClient client;
    private final String table;

    public OrderReplica(SyncClient client, String table) {
        this.client = client;
        this.table = table;
    }

    public String table() {
        return table;
    }

    /** Applies {@code changes} (in commit order per order id); returns the rows written. */
    public int apply(List<OrderChange> changes) {
        Map<String, NetChange> net = new LinkedHashMap<>();
        for (OrderChange change : changes) {
            net.merge(
                    change.orderId, NetChange.of(change), (before, ignored) -> before.then(change));
        }
        List<RowChange> rows = new ArrayList<>(net.size());
        net.forEach((id, change) -> rows.add(rowChange(id, change)));
        for (int from = 0; from < rows.size(); from += ROWS_PER_REQUEST) {
            write(rows.subList(from, Math.min(rows.size(), from + ROWS_PER_REQUEST)));
        }
        return rows.size();
    }

    private RowChange rowChange(String orderId, NetChange change) {
        PrimaryKey key = OrdersTable.key(orderId);
        return switch (change.kind()) {
            case REPLACE -> {
                RowPutChange put = new RowPutChange(table, key);
                change.puts()
                        .forEach((k, v) -> put.addColumn(new Column(k, OrdersTable.toCell(v))));
                yield put;
            }
            case PATCH -> {
                RowUpdateChange update = new RowUpdateChange(table, key);
                change.puts().forEach((k, v) -> update.put(new Column(k, OrdersTable.toCell(v))));
                change.deletes().forEach(update::deleteColumns);
                yield update;
            }
            case DELETE -> new RowDeleteChange(table, key);
        };
    }

    private void write(List<RowChange> rows) {
        BatchWriteRowRequest request = new BatchWriteRowRequest();
        rows.forEach(request::addRowChange);
        List<String> refused;
        try {
            refused = AppliedOnceWrites.batch(client, request);
        } catch (TableStoreException e) {
            // The service's message does not name the table ("Requested table does not exist.").
            throw new IllegalStateException(
                    "Could not write to replica table '"
                            + table
                            + "': "
                            + e.getErrorCode()
                            + " "
                            + e.getMessage()
                            + "; check that the table exists and is writable",
                    e);
        }
        if (!refused.isEmpty()) {
            throw new IllegalStateException(
                    refused.size()
                            + " rows failed to write to replica table '"
                            + table
                            + "', first: "
                            + refused.get(0)
                            + "; check that the table exists and is writable");
        }
    }
}
