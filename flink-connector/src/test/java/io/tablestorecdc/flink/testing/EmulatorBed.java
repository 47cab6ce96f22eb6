package io.tablestorecdc.flink.testing;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.execution.JobClient;

/** A started Tablestore emulator with SDK clients on it, for the Flink integration tests. */
public final class EmulatorBed implements AutoCloseable {

    private final AtomicInteger tables = new AtomicInteger();
    private final TablestoreEmulator emulator;
    private final SyncClient sync;
    private final TunnelClient tunnels;

    private EmulatorBed(TablestoreEmulator emulator) {
        this.emulator = emulator;
        this.sync = emulator.newSyncClient();
        this.tunnels = emulator.newTunnelClient();
    }

    /** Starts an emulator with the default instance and credentials. */
    public static EmulatorBed start() {
        return start(TablestoreEmulator.builder());
    }

    /** Starts the emulator {@code builder} describes (e.g. with a test's own secret). */
    public static EmulatorBed start(TablestoreEmulator.Builder builder) {
        return new EmulatorBed(builder.build().start());
    }

    public TablestoreEmulator emulator() {
        return emulator;
    }

    public SyncClient sync() {
        return sync;
    }

    public TunnelClient tunnels() {
        return tunnels;
    }

    /** Creates a table with primary key (id STRING); returns its name, unique on this emulator. */
    public String newTable(String prefix) {
        String table = prefix + tables.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return table;
    }

    public void createStreamTunnel(String table, String tunnel) {
        tunnels.createTunnel(new CreateTunnelRequest(table, tunnel, TunnelType.Stream));
    }

    /** The primary key of row {@code id} in a table from {@link #newTable}. */
    public static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    /** Writes row {@code id} whole: the given columns, no others. */
    public void put(String table, String id, Column... columns) {
        RowPutChange change = new RowPutChange(table, key(id));
        for (Column column : columns) {
            change.addColumn(column);
        }
        AppliedOnceWrites.put(sync, change);
    }

    /** Sets the given columns of row {@code id}; its other columns stay as they are. */
    public void update(String table, String id, Column... columns) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        for (Column column : columns) {
            change.put(column);
        }
        AppliedOnceWrites.update(sync, change);
    }

    /** Deletes one column of row {@code id}; its other columns stay as they are. */
    public void deleteColumn(String table, String id, String column) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        change.deleteColumns(column);
        AppliedOnceWrites.update(sync, change);
    }

    public void delete(String table, String id) {
        AppliedOnceWrites.delete(sync, new RowDeleteChange(table, key(id)));
    }

    /**
     * Cancels the job (if it still runs) and waits for its end, so that its source closes while the
     * emulator still answers.
     */
    public static void cancelAndAwaitEnd(JobClient job) {
        job.cancel().exceptionally(e -> null).join(); // already finished, failed or cancelled
        job.getJobExecutionResult().handle((r, e) -> null).join();
    }

    /** Shuts the clients down before the emulator they talk to. */
    @Override
    public void close() {
        tunnels.shutdown();
        sync.shutdown();
        emulator.close();
    }
}
