package io.tablestorecdc.e2e.orders;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.RowChange;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the orders the demo replicates: a base data set, then a paced mix of inserts, partial
 * updates and deletes. Single-threaded: {@link #runChanges} is called on one thread.
 */
public final class Workload {

    private static final List<String> STATUSES =
            List.of("NEW", "PAID", "PACKED", "SHIPPED", "DELIVERED");
    private static final List<String> CUSTOMERS =
            List.of("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi");

    /** Keeps each request well below Tablestore's 200-row limit and the writes smooth. */
    private static final int MAX_CHANGES_PER_REQUEST = 50;

    private final SyncClient client;
    private final String table;
    private final Random random;
    private final List<Long> live = new ArrayList<>();
    private long nextOrder;

    public final AtomicLong inserts = new AtomicLong();
    public final AtomicLong updates = new AtomicLong();
    public final AtomicLong deletes = new AtomicLong();

    public Workload(SyncClient client, String table, long seed) {
        this.client = client;
        this.table = table;
        this.random = new Random(seed);
    }

    /** Writes orders 0..rows-1 with BatchWriteRow. */
    public void writeBaseData(int rows) {
        for (int from = 0; from < rows; from += 200) {
            BatchWriteRowRequest request = new BatchWriteRowRequest();
            for (int n = from; n < Math.min(rows, from + 200); n++) {
                request.addRowChange(newOrder());
            }
            List<String> refused = AppliedOnceWrites.batch(client, request);
            if (!refused.isEmpty()) {
                throw new IllegalStateException(
                        "Writing the base data to '" + table + "' failed: " + refused.get(0));
            }
        }
    }

    /** Changes written after the base data. */
    public long changes() {
        return inserts.get() + updates.get() + deletes.get();
    }

    /**
     * Writes changes at about {@code perSecond} for {@code duration}, or until interrupted; calls
     * each of {@code milestones} once its time has come (at its fraction of the duration).
     */
    public void runChanges(double perSecond, Duration duration, List<Milestone> milestones) {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        List<Milestone> pending = new ArrayList<>(milestones);
        long written = 0;
        while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            pending.removeIf(m -> m.dueAt(start, duration, now) && m.run());
            long due = (long) ((now - start) / 1e9 * perSecond);
            if (written < due) {
                int count = (int) Math.min(due - written, MAX_CHANGES_PER_REQUEST);
                writeChanges(count);
                written += count;
            } else {
                pause((long) (1000 / Math.max(1, perSecond)) + 1);
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(Math.min(millis, 20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes {@code count} changes of distinct rows in one BatchWriteRow, as an application writing
     * in bulk would (a request may name a row only once).
     */
    private void writeChanges(int count) {
        BatchWriteRowRequest request = new BatchWriteRowRequest();
        Set<Long> touched = new HashSet<>();
        for (int i = 0; i < count; i++) {
            request.addRowChange(nextChange(touched));
        }
        // Every change is counted in the stream: a write the client reports failed is read back
        // before anything is sent again (AppliedOnceWrites), never blindly resent.
        List<String> refused = AppliedOnceWrites.batch(client, request);
        if (!refused.isEmpty()) {
            throw new IllegalStateException(
                    "Writing changes to '" + table + "' failed: " + refused.get(0));
        }
    }

    private RowChange nextChange(Set<Long> touched) {
        int dice = random.nextInt(100);
        long order = live.isEmpty() ? -1 : live.get(random.nextInt(live.size()));
        if (dice < 35 || live.size() < 10 || !touched.add(order)) {
            inserts.incrementAndGet();
            RowPutChange put = newOrder();
            touched.add(nextOrder - 1);
            return put;
        }
        if (dice < 80) {
            updates.incrementAndGet();
            return partialUpdate(order);
        }
        live.remove(Long.valueOf(order));
        deletes.incrementAndGet();
        return new RowDeleteChange(table, OrdersTable.key(OrdersTable.orderId(order)));
    }

    private RowPutChange newOrder() {
        long order = nextOrder++;
        live.add(order);
        RowPutChange put = new RowPutChange(table, OrdersTable.key(OrdersTable.orderId(order)));
        put.addColumn(column(OrdersTable.CUSTOMER, pick(CUSTOMERS)));
        put.addColumn(column(OrdersTable.QTY, 1L + random.nextInt(9)));
        put.addColumn(column(OrdersTable.AMOUNT, Math.round(random.nextDouble() * 50000) / 100.0));
        put.addColumn(column(OrdersTable.STATUS, "NEW"));
        if (random.nextBoolean()) {
            put.addColumn(column(OrdersTable.NOTE, "gift wrap"));
        }
        return put;
    }

    /** Touches only some columns: a new status, maybe a new quantity, maybe the note. */
    private RowUpdateChange partialUpdate(long order) {
        RowUpdateChange update =
                new RowUpdateChange(table, OrdersTable.key(OrdersTable.orderId(order)));
        update.put(column(OrdersTable.STATUS, pick(STATUSES)));
        if (random.nextInt(3) == 0) {
            update.put(column(OrdersTable.QTY, 1L + random.nextInt(20)));
        }
        int note = random.nextInt(5);
        if (note == 0) {
            update.deleteColumns(OrdersTable.NOTE);
        } else if (note == 1) {
            update.put(column(OrdersTable.NOTE, "call before delivery"));
        }
        return update;
    }

    private String pick(List<String> values) {
        return values.get(random.nextInt(values.size()));
    }

    private static Column column(String name, Object value) {
        return new Column(name, OrdersTable.toCell(value));
    }

    /** Something to do once, at a fraction of the change phase (a split, a merge). */
    public record Milestone(double atFraction, Runnable action) {

        boolean dueAt(long start, Duration duration, long now) {
            return now - start >= (long) (duration.toNanos() * atFraction);
        }

        boolean run() {
            action.run();
            return true;
        }
    }
}
