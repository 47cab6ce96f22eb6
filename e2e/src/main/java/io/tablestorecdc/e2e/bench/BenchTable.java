package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The benchmark's data: a table split into partitions, stream tunnels created before any write (so
 * each one drains the whole backlog), then rows written by several threads.
 */
final class BenchTable {

    private static final int WRITE_BATCH = 200;
    private static final int WRITERS = 4;
    private static final String PAYLOAD = "x".repeat(48);

    private final BenchEmulator emulator;
    private final SyncClient sync;
    private final TunnelClient tunnels;
    private final String name;

    BenchTable(BenchEmulator emulator, SyncClient sync, TunnelClient tunnels, String name) {
        this.emulator = emulator;
        this.sync = sync;
        this.tunnels = tunnels;
        this.name = name;
    }

    String name() {
        return name;
    }

    /** Creates the table with {@code partitions} key ranges over {@code rows} keys. */
    void create(int partitions, long rows) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        for (int p = 1; p < partitions; p++) {
            emulator.split(name, key(rows * p / partitions));
        }
    }

    /** Creates a stream tunnel and returns its id. */
    String createStreamTunnel(String tunnelName) {
        return tunnels.createTunnel(new CreateTunnelRequest(name, tunnelName, TunnelType.Stream))
                .getTunnelId();
    }

    /** Writes rows 0..rows-1 with BatchWriteRow from a few threads; returns the seconds taken. */
    double write(int rows) throws Exception {
        long start = System.nanoTime();
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> batches = new ArrayList<>();
            for (int first = 0; first < rows; first += WRITE_BATCH) {
                int from = first;
                batches.add(writers.submit(() -> writeBatch(from, rows)));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        } finally {
            writers.shutdownNow();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private void writeBatch(int first, int rows) {
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int i = first; i < Math.min(rows, first + WRITE_BATCH); i++) {
            RowPutChange put = new RowPutChange(name, key(i));
            put.addColumn(new Column("n", ColumnValue.fromLong(i)));
            put.addColumn(new Column("d", ColumnValue.fromDouble(i / 3.0)));
            put.addColumn(new Column("s", ColumnValue.fromString(PAYLOAD)));
            batch.addRowChange(put);
        }
        if (!sync.batchWriteRow(batch).isAllSucceed()) {
            throw new IllegalStateException("BatchWriteRow failed for rows from " + first);
        }
    }

    /**
     * Writes one row into each of the given partitions of a table {@link #create}d with {@code
     * partitions} ranges over {@code span} keys: the keys extend each partition's first key, so
     * they fall in that partition and no other. {@code serial} keeps the keys of calls apart.
     */
    void writeInto(List<Integer> targets, int partitions, long span, long serial) {
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int p : targets) {
            String first = String.format(Locale.ROOT, "row-%09d", span * p / partitions);
            RowPutChange put =
                    new RowPutChange(
                            name,
                            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                    .addPrimaryKeyColumn(
                                            "id",
                                            PrimaryKeyValue.fromString(
                                                    first + String.format("-%09d", serial)))
                                    .build());
            put.addColumn(new Column("n", ColumnValue.fromLong(serial)));
            put.addColumn(new Column("d", ColumnValue.fromDouble(serial / 3.0)));
            put.addColumn(new Column("s", ColumnValue.fromString(PAYLOAD)));
            batch.addRowChange(put);
        }
        if (!sync.batchWriteRow(batch).isAllSucceed()) {
            throw new IllegalStateException("BatchWriteRow failed for serial " + serial);
        }
    }

    static PrimaryKey key(long i) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn(
                        "id", PrimaryKeyValue.fromString(String.format(Locale.ROOT, "row-%09d", i)))
                .build();
    }
}
