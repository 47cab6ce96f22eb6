package io.tablestorecdc.e2e.handover;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.InstanceConnection;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderReplica;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.e2e.orders.Workload;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * An orders table on the embedded emulator with a stream tunnel, its base rows and a paced writer
 * of inserts, partial updates and deletes (with a split and a merge when asked): the change stream
 * the end-to-end tests read, and the source table their results are checked against.
 */
public final class OrdersStream implements AutoCloseable {

    /** The meta table both engines use (their default). */
    public static final String META_TABLE = SdkMetaTableClient.DEFAULT_TABLE_NAME;

    private final TablestoreEmulator emulator;
    private final SyncClient client;
    private final String table;
    private final String tunnel;
    private final String tunnelId;
    private final int baseRows;
    private final Workload workload;
    private CompletableFuture<Void> writer = CompletableFuture.completedFuture(null);

    private OrdersStream(TablestoreEmulator emulator, String table, int baseRows, String tunnel) {
        this.emulator = emulator;
        // Without the demo's write retry: the test expects one change per write, and a retried
        // write that the server had already applied would be two.
        DemoTarget t = target(emulator);
        this.client =
                new SyncClient(
                        t.endpoint(), t.accessKeyId(), t.accessKeySecret(), t.instanceName());
        this.table = table;
        this.tunnel = tunnel;
        this.baseRows = baseRows;
        this.workload = new Workload(client, table, table.hashCode());
        OrdersTable.create(client, table);
        this.tunnelId = createStreamTunnel();
    }

    /** Creates the table and its stream tunnel, then writes {@code baseRows} orders. */
    public static OrdersStream create(TablestoreEmulator emulator, String table, int baseRows) {
        return create(emulator, table, baseRows, table + "_cdc");
    }

    /** {@link #create(TablestoreEmulator, String, int)} with the tunnel named {@code tunnel}. */
    public static OrdersStream create(
            TablestoreEmulator emulator, String table, int baseRows, String tunnel) {
        OrdersStream stream = new OrdersStream(emulator, table, baseRows, tunnel);
        stream.workload.writeBaseData(baseRows);
        return stream;
    }

    public static DemoTarget target(TablestoreEmulator emulator) {
        return new DemoTarget(
                emulator.endpoint(),
                emulator.instanceName(),
                emulator.accessKeyId(),
                emulator.accessKeySecret());
    }

    private String createStreamTunnel() {
        TunnelClient tunnels = target(emulator).tunnelClient();
        try {
            tunnels.createTunnel(new CreateTunnelRequest(table, tunnel, TunnelType.Stream));
            return tunnels.describeTunnel(new DescribeTunnelRequest(table, tunnel))
                    .getTunnelInfo()
                    .getTunnelId();
        } finally {
            tunnels.shutdown();
        }
    }

    public DemoTarget target() {
        return target(emulator);
    }

    /** What the captures read: this stream's table and tunnel on the emulator. */
    public TunnelTarget tunnelTarget() {
        return tunnelTarget(table);
    }

    /**
     * What the captures read: {@code tables} (this stream's table, or a comma-separated list of
     * tables whose tunnels share this stream's tunnel name) on the emulator.
     */
    public TunnelTarget tunnelTarget(String tables) {
        DemoTarget t = target();
        return new TunnelTarget(
                InstanceConnection.withKey(
                        t.endpoint(), t.instanceName(), t.accessKeyId(), t.accessKeySecret()),
                tables,
                tunnel,
                META_TABLE);
    }

    public String table() {
        return table;
    }

    public String tunnel() {
        return tunnel;
    }

    /** Starts writing changes on another thread; see {@link Workload#runChanges}. */
    public void startChanges(double perSecond, Duration duration, List<Workload.Milestone> steps) {
        writer = CompletableFuture.runAsync(() -> workload.runChanges(perSecond, duration, steps));
    }

    /**
     * Writes {@code duration} more of changes once the changes started before are written, so that
     * a consumer started now has changes to read whatever the first one managed to read.
     */
    public void continueChanges(double perSecond, Duration duration) {
        writer = writer.thenRunAsync(() -> workload.runChanges(perSecond, duration, List.of()));
    }

    /** A milestone that splits the table's partition at its middle order. */
    public Workload.Milestone splitAt(double fraction) {
        return new Workload.Milestone(
                fraction, () -> emulator.tunnels().split(table, OrdersTable.key(middle())));
    }

    /** A milestone that merges the two partitions around the middle order again. */
    public Workload.Milestone mergeAt(double fraction) {
        return new Workload.Milestone(
                fraction, () -> emulator.tunnels().merge(table, OrdersTable.key(middle())));
    }

    private String middle() {
        return OrdersTable.orderId(baseRows / 2);
    }

    /** Waits for the writer to finish; rethrows what failed it. */
    public void awaitChangesWritten() {
        writer.join();
    }

    /** How many changes the stream carries: the base rows plus every change written since. */
    public long expectedChanges() {
        return baseRows + workload.changes();
    }

    /** The table's partitions as the emulator's tunnel service sees them. */
    public int partitions() {
        return emulator.tunnels().partitions(table).size();
    }

    /** Waits until no consumer holds the tunnel's owner lease (a stopped one released it). */
    public void awaitOwnerReleased(Duration timeout) {
        TablestoreEndpoint endpoint =
                new TablestoreEndpoint(
                        emulator.endpoint(),
                        emulator.instanceName(),
                        TablestoreCredentials.of(
                                emulator.accessKeyId(), emulator.accessKeySecret()));
        try (SdkMetaTableClient meta = SdkMetaTableClient.connect(endpoint, META_TABLE)) {
            TunnelMeta store = new MetaTable(meta).tunnel(tunnelId);
            await(
                    () -> store.owner().isEmpty(),
                    timeout,
                    "the previous consumer to release tunnel " + tunnel);
        }
    }

    /**
     * Applies every distinct change in {@code seen}, in sequence order, to a fresh replica table
     * and compares it with the source table.
     */
    public TableDiff replicate(String replicaTable, Collection<SeenChange> seen) {
        TreeMap<SeenChange.Key, OrderChange> distinct = new TreeMap<>();
        seen.forEach(c -> distinct.putIfAbsent(c.key(), c.change));
        OrdersTable.create(client, replicaTable);
        new OrderReplica(client, replicaTable).apply(new ArrayList<>(distinct.values()));
        return TableDiff.between(
                OrdersTable.scan(client, table), OrdersTable.scan(client, replicaTable), 5);
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} after {@code timeout}. */
    public static void await(BooleanSupplier condition, Duration timeout, String what) {
        await(condition, timeout, what, () -> "");
    }

    /**
     * As {@link #await(BooleanSupplier, Duration, String)}; a timeout also reports {@code state}
     * (what the consumer and the server stood at), so that a failure tells its causes apart.
     */
    public static void await(
            BooleanSupplier condition, Duration timeout, String what, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Timed out after " + timeout + " waiting for " + what + state.get());
            }
            try {
                Thread.sleep(100); // polling interval of a condition with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting for " + what, e);
            }
        }
    }

    /** The tunnel's channels and their server status, e.g. "p-0=TERMINATED, p-1=OPEN". */
    public String serverChannels() {
        TunnelClient tunnels = emulator.newTunnelClient();
        try {
            return tunnels
                    .describeTunnel(new DescribeTunnelRequest(table, tunnel))
                    .getChannelInfos()
                    .stream()
                    .map(c -> c.getChannelId() + "=" + c.getChannelStatus())
                    .sorted()
                    .collect(Collectors.joining(", "));
        } catch (RuntimeException e) {
            return "(could not describe the tunnel: " + e.getMessage() + ")";
        } finally {
            tunnels.shutdown();
        }
    }

    @Override
    public void close() {
        writer.cancel(true);
        client.shutdown();
    }
}
