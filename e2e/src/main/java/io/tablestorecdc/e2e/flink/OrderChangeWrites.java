package io.tablestorecdc.e2e.flink;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.RowKey;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.flink.sink.RowWriteConverter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An order change as the row change {@code TablestoreSink} writes: a put of its columns, an update
 * of its columns with its column deletes, or a delete. The demo keys changes by order id, so a
 * key's changes arrive in order and need no sequence of their own.
 */
public final class OrderChangeWrites implements RowWriteConverter<OrderChange> {

    private static final long serialVersionUID = 1L;

    @Override
    public Optional<RowWrite> convert(OrderChange change) {
        return Optional.of(write(change, SequenceInfo.NONE));
    }

    /** {@code change} as a row change at {@code sequence} among its key's changes. */
    public static RowWrite write(OrderChange change, SequenceInfo sequence) {
        RowKey key = RowKey.of(OrdersTable.ORDER_ID, CellValue.ofString(change.orderId));
        return switch (change.action) {
            case PUT -> RowWrite.put(key, cells(change), sequence);
            case UPDATE ->
                    RowWrite.update(key, cells(change), Set.copyOf(change.deletes()), sequence);
            case DELETE -> RowWrite.delete(key, sequence);
        };
    }

    private static Map<String, CellValue> cells(OrderChange change) {
        Map<String, CellValue> cells = new LinkedHashMap<>();
        change.puts().forEach((name, value) -> cells.put(name, cell(name, value)));
        return cells;
    }

    private static CellValue cell(String name, Object value) {
        if (value instanceof String s) {
            return CellValue.ofString(s);
        }
        if (value instanceof Long n) {
            return CellValue.ofInteger(n);
        }
        if (value instanceof Double d) {
            return CellValue.ofDouble(d);
        }
        throw new IllegalArgumentException(
                "Column " + name + " holds a " + value.getClass().getSimpleName());
    }
}
