package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes rows one PutRow at a time at a fixed rate and notes when each was acknowledged. Keys are
 * spread over the whole key space (a fixed permutation), so every partition gets its share of the
 * load; each key is written once.
 */
final class SteadyWriter {

    private static final int STRIDE = 7919; // a prime: i * STRIDE mod keySpace is a permutation
    private static final String PAYLOAD = "x".repeat(48);
    private static final int THREADS = 4;

    private final SyncClient sync;
    private final String table;
    private final long keySpace;
    private final Map<String, Long> ackNanos = new ConcurrentHashMap<>();
    private long next;

    /** {@code keySpace} must not be a multiple of 7919 (it is the table's BenchTable row count). */
    SteadyWriter(SyncClient sync, String table, long keySpace) {
        if (keySpace % STRIDE == 0) {
            throw new IllegalArgumentException("keySpace must not be a multiple of " + STRIDE);
        }
        this.sync = sync;
        this.table = table;
        this.keySpace = keySpace;
    }

    /**
     * Writes {@code rate} rows a second for {@code seconds}, each at its own time slot, from {@link
     * #THREADS} threads (a PutRow takes a few ms, longer on a busy machine); returns the keys
     * written. Falls behind (the achieved rate says so) when the threads cannot keep up.
     */
    String[] write(int rate, double seconds) throws Exception {
        int count = (int) Math.round(rate * seconds);
        String[] keys = new String[count];
        long first = next;
        next += count;
        long start = System.nanoTime();
        long interval = 1_000_000_000L / rate;
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int offset = t;
                writers.add(
                        threads.submit(
                                () -> {
                                    for (int i = offset; i < count; i += THREADS) {
                                        LockSupport.parkNanos(
                                                start + i * interval - System.nanoTime());
                                        keys[i] = put(first + i);
                                    }
                                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
        } finally {
            threads.shutdownNow();
        }
        return keys;
    }

    private String put(long index) {
        long k = index * STRIDE % keySpace;
        RowPutChange put = new RowPutChange(table, BenchTable.key(k));
        put.addColumn(new Column("n", ColumnValue.fromLong(System.currentTimeMillis())));
        put.addColumn(new Column("d", ColumnValue.fromDouble(index)));
        put.addColumn(new Column("s", ColumnValue.fromString(PAYLOAD)));
        sync.putRow(new PutRowRequest(put));
        String key = String.format(Locale.ROOT, "row-%09d", k);
        ackNanos.put(key, System.nanoTime());
        return key;
    }

    long ackNanos(String key) {
        return ackNanos.get(key);
    }
}
