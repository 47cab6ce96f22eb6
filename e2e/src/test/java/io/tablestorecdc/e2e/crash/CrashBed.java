package io.tablestorecdc.e2e.crash;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.e2e.orders.Workload;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a crash loop runs against: an embedded emulator in the test JVM (the test kit's {@link
 * EmulatorBed}) with the orders table (base data written), an empty replica table, a BaseAndStream
 * tunnel, a writer thread of inserts, partial updates and deletes, splits and merges on demand, and
 * the source's change history as the emulator acknowledged it.
 */
final class CrashBed implements AutoCloseable {

    static final String TABLE = "orders";
    static final String REPLICA = "orders_replica";

    /** The replica the product's own sink writes ({@code tablestore} connector). */
    static final String SINK_REPLICA = "orders_sink_replica";

    static final String TUNNEL = "orders_crash";

    final Path dir;
    final SourceTruth truth = new SourceTruth(TABLE);
    private final EmulatorBed bed;
    private final TablestoreEmulator emulator;
    private final SyncClient client;
    private final Workload workload;
    private final int baseRows;
    private final Random random;
    private final TreeSet<Integer> boundaries = new TreeSet<>();
    private final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
    private volatile boolean writing;
    private Thread writer;

    CrashBed(String engine, int baseRows, long seed) throws IOException {
        this.dir = Files.createDirectories(runDirectory(engine));
        this.baseRows = baseRows;
        this.random = new Random(seed);
        bed = EmulatorBed.start();
        emulator = bed.emulator();
        emulator.tables().addListener(truth);
        client = bed.sync();
        OrdersTable.create(client, TABLE);
        OrdersTable.create(client, REPLICA);
        OrdersTable.create(client, SINK_REPLICA);
        workload = new Workload(client, TABLE, seed);
        workload.writeBaseData(baseRows);
        bed.createTunnel(TABLE, TUNNEL, TunnelType.BaseAndStream);
        truth.tunnelCreated(OrdersTable.scan(client, TABLE).keySet());
    }

    /** {@code <build dir>/crash/<engine>-<time>}: next to the test classes, kept for reading. */
    private static Path runDirectory(String engine) {
        try {
            Path testClasses =
                    Path.of(
                            CrashBed.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            String time =
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            return testClasses.getParent().resolve("crash").resolve(engine + "-" + time);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    DemoTarget target() {
        return new DemoTarget(
                emulator.endpoint(),
                emulator.instanceName(),
                emulator.accessKeyId(),
                emulator.accessKeySecret());
    }

    /** The arguments every child needs to reach the emulator, the table, tunnel and replica. */
    List<String> childArgs() {
        return List.of(
                "endpoint=" + emulator.endpoint(),
                "instance=" + emulator.instanceName(),
                "accessKeyId=" + emulator.accessKeyId(),
                "table=" + TABLE,
                "tunnel=" + TUNNEL,
                "replica=" + REPLICA,
                "sinkReplica=" + SINK_REPLICA);
    }

    Map<String, String> childEnv() {
        return Map.of(ChildArgs.SECRET_ENV, emulator.accessKeySecret());
    }

    /** Starts writing about {@code perSecond} changes a second until {@link #stopWriting}. */
    void startWriting(double perSecond) {
        writing = true;
        writer =
                new Thread(
                        () -> {
                            try {
                                while (writing) {
                                    workload.runChanges(
                                            perSecond, Duration.ofMillis(250), List.of());
                                }
                            } catch (RuntimeException e) {
                                writerFailure.set(e);
                            }
                        },
                        "crash-loop-writer");
        writer.start();
    }

    void stopWriting() throws InterruptedException {
        writing = false;
        writer.join();
        checkWriter();
    }

    /** Fails the test if the writer thread failed. */
    void checkWriter() {
        Throwable failure = writerFailure.get();
        if (failure != null) {
            throw new AssertionError("The workload writer failed", failure);
        }
    }

    /** Splits the partition holding a random base order there. */
    Lineage split() {
        int at;
        do {
            at = 1 + random.nextInt(baseRows - 1);
        } while (!boundaries.add(at));
        String key = OrdersTable.orderId(at);
        List<String> children = emulator.tunnels().split(TABLE, OrdersTable.key(key));
        return new Lineage("split at " + key + " into " + children, children);
    }

    /** Merges back a random earlier split, if one is active. */
    Optional<Lineage> merge() {
        if (boundaries.isEmpty()) {
            return Optional.empty();
        }
        Integer at = new ArrayList<>(boundaries).get(random.nextInt(boundaries.size()));
        boundaries.remove(at);
        String key = OrdersTable.orderId(at);
        String merged = emulator.tunnels().merge(TABLE, OrdersTable.key(key));
        return Optional.of(
                new Lineage("merge at " + key + " into [" + merged + "]", List.of(merged)));
    }

    /**
     * A split or merge that was done.
     *
     * @param description what was done, for the test's output
     * @param children the partitions (= stream channels) it started
     */
    record Lineage(String description, List<String> children) {}

    TableDiff diff() {
        return TableDiff.between(
                OrdersTable.scan(client, TABLE), OrdersTable.scan(client, REPLICA), 5);
    }

    /** The replica written by the {@code tablestore} sink against the source table. */
    TableDiff sinkDiff() {
        return TableDiff.between(
                OrdersTable.scan(client, TABLE), OrdersTable.scan(client, SINK_REPLICA), 5);
    }

    @Override
    public void close() throws InterruptedException {
        writing = false;
        if (writer != null) {
            writer.join();
        }
        bed.close();
    }
}
