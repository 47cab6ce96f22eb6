package io.tablestorecdc.spark;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
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
public final class CdcTestBed implements AutoCloseable {

    public static final String SECRET = "s3cr3t-Emulator-Key-9Qx7";
    private final EmulatorBed bed =
            EmulatorBed.start(TablestoreEmulator.builder().accessKeySecret(SECRET));
    public final TablestoreEmulator emulator;
    public final SyncClient sync;
    private final TunnelClient tunnels;
    public final SparkSession spark;
    private final TriggerCounter triggers = new TriggerCounter();

    public CdcTestBed() {
        emulator = bed.emulator();
        // No write retry: a retried put the server had applied would reach the stream twice, and
        // these tests count duplicates (the bed's writes are applied once).
        sync = bed.sync();
        tunnels = bed.tunnels();
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
    public String newTable() {
        return bed.newTable("cdc_t");
    }

    /** A new table with primary key (id STRING), named {@code prefix} and a number. */
    public String newTable(String prefix) {
        return bed.newTable(prefix);
    }

    /**
     * A new table with primary key (id STRING) whose stream carries the values of {@code
     * originColumns} before each change.
     */
    String newTableWithBeforeImages(String... originColumns) {
        return bed.newTableWithBeforeImages("cdc_t", originColumns);
    }

    public static PrimaryKey key(String id) {
        return EmulatorBed.key(id);
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
        bed.createTunnel(table, tunnel, type);
    }

    public void put(String table, String id, long qty, String name) {
        RowPutChange change = new RowPutChange(table, key(id));
        change.addColumn(new Column("qty", ColumnValue.fromLong(qty)));
        change.addColumn(new Column("name", ColumnValue.fromString(name)));
        AppliedOnceWrites.put(sync, change);
    }

    public void updateQtyDeleteName(String table, String id, long qty) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        change.put(new Column("qty", ColumnValue.fromLong(qty)));
        change.deleteColumns("name");
        AppliedOnceWrites.update(sync, change);
    }

    public void delete(String table, String id) {
        bed.delete(table, id);
    }

    /** A reader that creates a stream tunnel from the table's first change. */
    public DataStreamReader reader(String table, String tunnel) {
        return baseReader(table, tunnel)
                .option("tunnel.create", "stream")
                .option("tunnel.start", "earliest");
    }

    /** A reader of an existing tunnel. */
    DataStreamReader baseReader(String table, String tunnel) {
        return instanceReader()
                .option("table.name", table)
                .option("tunnel.name", tunnel)
                .option("channel.read.budget", "2s");
    }

    /** A reader of the emulator's instance, without a table or tunnel yet. */
    DataStreamReader instanceReader() {
        return spark.readStream()
                .format("tablestore-cdc")
                .option("endpoint", emulator.endpoint())
                .option("instance.name", emulator.instanceName())
                .option("access.key.id", emulator.accessKeyId())
                .option("access.key.secret", SECRET);
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
    <T> T withMetaTable(Clock clock, Function<MetaTable, T> action) {
        try (var client =
                SdkMetaTableClient.connect(endpoint(), SdkMetaTableClient.DEFAULT_TABLE_NAME)) {
            return action.apply(new MetaTable(client, clock));
        }
    }

    public static Path checkpointDir() {
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
        Await.until(what, timeout, condition);
    }

    /** Waits for {@code condition}; fails at once if the query stops with an error. */
    public static void await(
            StreamingQuery query, String what, Duration timeout, BooleanSupplier condition) {
        Await.until(
                what,
                timeout,
                () -> {
                    if (condition.getAsBoolean()) {
                        return true;
                    }
                    if (!query.isActive()) {
                        throw new AssertionError(
                                "Query stopped while waiting for " + what,
                                query.exception().getOrElse(() -> null));
                    }
                    return false;
                });
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
        bed.close();
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
