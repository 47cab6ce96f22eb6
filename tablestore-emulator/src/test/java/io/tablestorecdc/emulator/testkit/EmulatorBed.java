package io.tablestorecdc.emulator.testkit;

import com.alicloud.openservices.tablestore.ClientException;
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
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A started emulator with SDK clients on it and the writes tests make: the one test bed of every
 * module's emulator tests.
 *
 * <p>Either started by hand ({@link #start()}, closed by the test), or per test class as a JUnit 5
 * extension: {@code @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();}
 * starts the emulator before the class's first test and closes it after its last.
 *
 * <p>Writes go through {@link AppliedOnceWrites}: a write whose answer was lost is never resent
 * blindly, so a change reaches the stream once, as the tests that count duplicates need.
 */
public final class EmulatorBed implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private static final AtomicInteger TABLES = new AtomicInteger();

    private final Supplier<TablestoreEmulator.Builder> builder;
    private TablestoreEmulator emulator;
    private SyncClient sync;
    private TunnelClient tunnels;

    private EmulatorBed(Supplier<TablestoreEmulator.Builder> builder) {
        this.builder = builder;
    }

    /** Starts an emulator with the default instance and credentials. */
    public static EmulatorBed start() {
        return start(TablestoreEmulator.builder());
    }

    /** Starts the emulator {@code builder} describes (e.g. with a test's own secret). */
    public static EmulatorBed start(TablestoreEmulator.Builder builder) {
        EmulatorBed bed = new EmulatorBed(() -> builder);
        bed.open();
        return bed;
    }

    /** A bed the JUnit 5 extension starts before a class's tests and closes after them. */
    public static EmulatorBed perClass() {
        return perClass(TablestoreEmulator::builder);
    }

    /** {@link #perClass()} with the emulator {@code builder} describes. */
    public static EmulatorBed perClass(Supplier<TablestoreEmulator.Builder> builder) {
        return new EmulatorBed(builder);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        open();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private void open() {
        emulator = builder.get().build().start();
        sync = emulator.newSyncClient();
        tunnels = emulator.newTunnelClient();
    }

    public TablestoreEmulator emulator() {
        return started(emulator);
    }

    public SyncClient sync() {
        return started(sync);
    }

    public TunnelClient tunnels() {
        return started(tunnels);
    }

    private static <T> T started(T part) {
        if (part == null) {
            throw new IllegalStateException(
                    "The emulator bed is not started: register it with @RegisterExtension on a"
                            + " static field, or use EmulatorBed.start()");
        }
        return part;
    }

    /** Creates a table with primary key (id STRING); returns its name, unique in this JVM. */
    public String newTable(String prefix) {
        String table = prefix + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        createOnce(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return table;
    }

    /**
     * Creates a table as {@link #newTable} does, whose stream carries the values of {@code
     * originColumns} before each change (the stream's origin columns); returns its name.
     */
    public String newTableWithBeforeImages(String prefix, String... originColumns) {
        String table = prefix + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        StreamSpecification stream = new StreamSpecification(true, 24);
        stream.addOriginColumnsToGet(originColumns);
        create.setStreamSpecification(stream);
        createOnce(create);
        return table;
    }

    /**
     * Creates the table once, also when the SDK reports its allocation race (see {@link
     * AppliedOnceWrites}): the request may have been applied, so the table is looked for before it
     * is created again.
     */
    private void createOnce(CreateTableRequest create) {
        try {
            sync().createTable(create);
        } catch (ClientException e) {
            if (!AppliedOnceWrites.reportedClosedAtAllocation(e)) {
                throw e;
            }
            String table = create.getTableMeta().getTableName();
            if (!sync().listTable().getTableNames().contains(table)) {
                sync().createTable(create);
            }
        }
    }

    /** Creates a tunnel of {@code type}; returns its id. */
    public String createTunnel(String table, String tunnel, TunnelType type) {
        return tunnels().createTunnel(new CreateTunnelRequest(table, tunnel, type)).getTunnelId();
    }

    /** Creates a stream or base-and-stream tunnel that starts as {@code config} says. */
    public String createTunnel(
            String table, String tunnel, TunnelType type, StreamTunnelConfig config) {
        CreateTunnelRequest request = new CreateTunnelRequest(table, tunnel, type);
        request.setStreamTunnelConfig(config);
        return tunnels().createTunnel(request).getTunnelId();
    }

    public String createStreamTunnel(String table, String tunnel) {
        return createTunnel(table, tunnel, TunnelType.Stream);
    }

    public DescribeTunnelResponse describeTunnel(String table, String tunnel) {
        return tunnels().describeTunnel(new DescribeTunnelRequest(table, tunnel));
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
        AppliedOnceWrites.put(sync(), change);
    }

    /** Writes row {@code id} whole with one column, {@code v = value}. */
    public void put(String table, String id, long value) {
        put(
                table,
                id,
                new Column(
                        "v",
                        com.alicloud.openservices.tablestore.model.ColumnValue.fromLong(value)));
    }

    /** Sets the given columns of row {@code id}; its other columns stay as they are. */
    public void update(String table, String id, Column... columns) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        for (Column column : columns) {
            change.put(column);
        }
        AppliedOnceWrites.update(sync(), change);
    }

    /** Deletes one column of row {@code id}; its other columns stay as they are. */
    public void deleteColumn(String table, String id, String column) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        change.deleteColumns(column);
        AppliedOnceWrites.update(sync(), change);
    }

    public void delete(String table, String id) {
        AppliedOnceWrites.delete(sync(), new RowDeleteChange(table, key(id)));
    }

    /** Shuts the clients down before the emulator they talk to. */
    @Override
    public void close() {
        if (emulator == null) {
            return;
        }
        tunnels.shutdown();
        sync.shutdown();
        emulator.close();
        emulator = null;
        sync = null;
        tunnels = null;
    }
}
