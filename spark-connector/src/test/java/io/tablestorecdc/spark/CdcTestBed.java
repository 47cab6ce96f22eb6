package io.tablestorecdc.spark;

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
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/** An embedded emulator, a local SparkSession, and helpers to write rows and run queries. */
final class CdcTestBed implements AutoCloseable {

    static final String SECRET = "s3cr3t-Emulator-Key-9Qx7";
    private static final AtomicInteger COUNTER = new AtomicInteger();

    final TablestoreEmulator emulator;
    final SyncClient sync;
    private final TunnelClient tunnels;
    final SparkSession spark;
    private final TriggerCounter triggers = new TriggerCounter();

    CdcTestBed() {
        emulator = TablestoreEmulator.builder().accessKeySecret(SECRET).build().start();
        // No write retry: a retried put the server had applied would reach the stream twice, and
        // these tests count duplicates.
        sync = emulator.newSyncClient();
        tunnels = emulator.newTunnelClient();
        spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc-it")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .config("spark.sql.streaming.pollingDelay", "10ms")
                        .getOrCreate();
        // Every trigger reports progress, also one that found no data (the session may be shared).
        spark.conf().set("spark.sql.streaming.noDataProgressEventInterval", "0");
        spark.streams().addListener(triggers);
    }

    /** A new table with primary key (id STRING). */
    String newTable() {
        String name = "cdc_t" + COUNTER.incrementAndGet();
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

    /**
     * The command line of a child JVM running {@code main} on this test's class path, with this
     * JVM's module opens. A short-lived JVM: quick JIT and one GC thread start Spark faster on a
     * busy machine.
     */
    static List<String> childJvm(Class<?> main) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(
                        a ->
                                a.startsWith("--add-opens")
                                        || a.startsWith("-XX:+Ignore")
                                        || a.startsWith("-Djdk.reflect"))
                .forEach(cmd::add);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        return cmd;
    }

    /**
     * Creates a tunnel of {@code type} on {@code table} (the source can also create stream ones).
     */
    void createTunnel(String table, String tunnel, TunnelType type) {
        tunnels.createTunnel(new CreateTunnelRequest(table, tunnel, type));
    }

    void put(String table, String id, long qty, String name) {
        RowPutChange change = new RowPutChange(table, key(id));
        change.addColumn(new Column("qty", ColumnValue.fromLong(qty)));
        change.addColumn(new Column("name", ColumnValue.fromString(name)));
        AppliedOnceWrites.put(sync, change);
    }

    void updateQtyDeleteName(String table, String id, long qty) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        change.put(new Column("qty", ColumnValue.fromLong(qty)));
        change.deleteColumns("name");
        AppliedOnceWrites.update(sync, change);
    }

    void delete(String table, String id) {
        AppliedOnceWrites.delete(sync, new RowDeleteChange(table, key(id)));
    }

    /** A reader that creates a stream tunnel from the table's first change. */
    DataStreamReader reader(String table, String tunnel) {
        return baseReader(table, tunnel)
                .option("tunnel.create", "stream")
                .option("tunnel.start", "earliest");
    }

    /** A reader of an existing tunnel. */
    DataStreamReader baseReader(String table, String tunnel) {
        return spark.readStream()
                .format("tablestore-cdc")
                .option("endpoint", emulator.endpoint())
                .option("instance.name", emulator.instanceName())
                .option("access.key.id", emulator.accessKeyId())
                .option("access.key.secret", SECRET)
                .option("table.name", table)
                .option("tunnel.name", tunnel)
                .option("channel.read.budget", "2s");
    }

    /** The emulator as the core's clients address it. */
    TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                emulator.endpoint(),
                emulator.instanceName(),
                TablestoreCredentials.of(emulator.accessKeyId(), SECRET));
    }

    /** The id of an existing tunnel. */
    String tunnelId(String table, String tunnel) {
        try (var proxy = SdkTunnelProxy.create(endpoint())) {
            return proxy.describeTunnel(table, tunnel).tunnelId();
        }
    }

    /**
     * Runs {@code action} on the default meta table, as a consumer whose clock is {@code clock}.
     */
    <T> T withMetaStore(Clock clock, Function<MetaStore, T> action) {
        try (var client =
                SdkMetaTableClient.connect(endpoint(), SdkMetaTableClient.DEFAULT_TABLE_NAME)) {
            return action.apply(new MetaStore(client, clock));
        }
    }

    static Path checkpointDir() {
        try {
            return Files.createTempDirectory("tablestore-cdc-ckpt");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Starts a query that hands every batch to {@code sink}. */
    StreamingQuery start(Dataset<Row> df, Path checkpoint, BatchSink sink) {
        return start(
                df, checkpoint, sink, Trigger.ProcessingTime(Duration.ofMillis(200).toMillis()));
    }

    /** Starts a query with {@code trigger} that hands every batch to {@code sink}. */
    StreamingQuery start(Dataset<Row> df, Path checkpoint, BatchSink sink, Trigger trigger) {
        try {
            return df.writeStream()
                    .trigger(trigger)
                    .option("checkpointLocation", checkpoint.toString())
                    .foreachBatch((VoidFunction2<Dataset<Row>, Long>) sink::accept)
                    .start();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            sleep();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Waits for {@code condition}; fails at once if the query stops with an error. */
    static void await(
            StreamingQuery query, String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (!query.isActive()) {
                throw new AssertionError(
                        "Query stopped while waiting for " + what,
                        query.exception().getOrElse(() -> null));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /**
     * Waits until {@code query} has run {@code count} more triggers, with or without data: what a
     * negative check waits for ("a duplicate would arrive in the next batches"), so that it holds
     * however slowly the machine runs.
     */
    void awaitTriggers(StreamingQuery query, int count, Duration timeout) {
        long target = triggers.count(query.id()) + count;
        await(query, count + " more triggers", timeout, () -> triggers.count(query.id()) >= target);
    }

    /** Records the server holds as consumed on the tunnel's channels (from pushed checkpoints). */
    long serverConsumedCount(String table, String tunnel) {
        return tunnels
                .describeTunnel(new DescribeTunnelRequest(table, tunnel))
                .getChannelInfos()
                .stream()
                .mapToLong(ChannelInfo::getChannelCount)
                .sum();
    }

    @Override
    public void close() {
        spark.streams().removeListener(triggers);
        tunnels.shutdown();
        sync.shutdown();
        emulator.close();
    }

    /**
     * An idempotent sink keyed by batch id (as a Delta or file sink is), which also keeps every
     * delivery so tests can check that a replayed batch delivered the same rows.
     */
    static final class BatchSink {
        final Map<Long, List<Row>> batches = new ConcurrentSkipListMap<>();
        final List<Map.Entry<Long, List<Row>>> deliveries = new CopyOnWriteArrayList<>();

        void accept(Dataset<Row> df, Long batchId) {
            List<Row> rows = df.collectAsList();
            deliveries.add(Map.entry(batchId, rows));
            batches.put(batchId, rows);
        }

        /** Every committed row, in batch order. */
        List<Row> rows() {
            List<Row> all = new ArrayList<>();
            new TreeMap<>(batches).values().forEach(all::addAll);
            return all;
        }

        int count() {
            return batches.values().stream().mapToInt(List::size).sum();
        }
    }

    /** Counts the triggers of each query: its progress and idle events. */
    private static final class TriggerCounter extends StreamingQueryListener {
        private final Map<UUID, AtomicLong> counts = new ConcurrentHashMap<>();

        long count(UUID query) {
            AtomicLong n = counts.get(query);
            return n == null ? 0 : n.get();
        }

        @Override
        public void onQueryStarted(QueryStartedEvent event) {}

        @Override
        public void onQueryProgress(QueryProgressEvent event) {
            counted(event.progress().id());
        }

        /** A trigger that found no data (Spark 3.5 reports it so, not as progress). */
        @Override
        public void onQueryIdle(QueryIdleEvent event) {
            counted(event.id());
        }

        private void counted(UUID query) {
            counts.computeIfAbsent(query, id -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void onQueryTerminated(QueryTerminatedEvent event) {}
    }
}
