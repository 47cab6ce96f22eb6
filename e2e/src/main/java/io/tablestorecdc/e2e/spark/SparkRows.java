package io.tablestorecdc.e2e.spark;

import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrdersTable;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;

/** Turns the rows of {@code format("tablestore-cdc")} into {@link OrderChange}s. */
final class SparkRows {

    /** Orders the changes of one key: the connector's {@code _seq} (epoch, time, row index). */
    private static final Comparator<Row> BY_SEQUENCE =
            Comparator.<Row>comparingInt(r -> seq(r).getInt(0))
                    .thenComparingLong(r -> seq(r).getLong(1))
                    .thenComparingInt(r -> seq(r).getInt(2));

    private SparkRows() {}

    /** The batch's changes in commit order per key (the sort is stable). */
    static List<OrderChange> toChanges(List<Row> rows) {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(BY_SEQUENCE);
        List<OrderChange> out = new ArrayList<>(sorted.size());
        sorted.forEach(r -> out.add(toChange(r)));
        return out;
    }

    static OrderChange toChange(Row row) {
        Timestamp commit = row.getAs("_commit_ts");
        OrderChange change =
                OrderChange.of(
                        row.getAs(OrdersTable.ORDER_ID),
                        OrderChange.Action.valueOf(row.getAs("_op")),
                        row.getAs("_channel"),
                        commit == null ? 0 : micros(commit));
        // _column_ops says which columns the change carries and whether it set or removed them;
        // a null attribute alone cannot tell "untouched" from "removed".
        Map<String, String> ops = row.getJavaMap(row.fieldIndex("_column_ops"));
        ops.forEach(
                (column, op) -> {
                    if ("PUT".equals(op)) {
                        change.put(column, row.getAs(column));
                    } else {
                        change.delete(column);
                    }
                });
        return change;
    }

    private static Row seq(Row row) {
        return row.getStruct(row.fieldIndex("_seq"));
    }

    private static long micros(Timestamp ts) {
        return ts.getTime() / 1000 * 1_000_000 + ts.getNanos() / 1000;
    }
}
