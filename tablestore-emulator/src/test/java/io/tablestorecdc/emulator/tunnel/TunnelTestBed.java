package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** An embedded emulator with an SDK SyncClient and TunnelClient, and helpers for tunnel tests. */
final class TunnelTestBed implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    final TablestoreEmulator emulator;
    final SyncClient sync;
    final TunnelClient tunnelClient;

    TunnelTestBed() {
        emulator = TablestoreEmulator.builder().build().start();
        sync = emulator.newSyncClient();
        tunnelClient = emulator.newTunnelClient();
    }

    TunnelService tunnels() {
        return emulator.tunnels();
    }

    /** A new table with primary key (id STRING). */
    String newTable() {
        String name = "tunnel_t" + COUNTER.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    void put(String table, String id, long value) {
        RowPutChange change = new RowPutChange(table, key(id));
        change.addColumn(new Column("v", ColumnValue.fromLong(value)));
        AppliedOnceWrites.put(sync, change);
    }

    void delete(String table, String id) {
        AppliedOnceWrites.delete(sync, new RowDeleteChange(table, key(id)));
    }

    String createTunnel(String table, String name, TunnelType type) {
        return tunnelClient.createTunnel(new CreateTunnelRequest(table, name, type)).getTunnelId();
    }

    String createTunnel(String table, String name, TunnelType type, StreamTunnelConfig config) {
        CreateTunnelRequest request = new CreateTunnelRequest(table, name, type);
        request.setStreamTunnelConfig(config);
        return tunnelClient.createTunnel(request).getTunnelId();
    }

    DescribeTunnelResponse describe(String table, String name) {
        return tunnelClient.describeTunnel(new DescribeTunnelRequest(table, name));
    }

    /** Polls until the condition holds, failing after the timeout. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting for " + what, e);
            }
        }
    }

    @Override
    public void close() {
        tunnelClient.shutdown();
        sync.shutdown();
        emulator.close();
    }
}
