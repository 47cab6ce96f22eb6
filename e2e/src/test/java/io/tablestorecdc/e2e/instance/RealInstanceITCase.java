package io.tablestorecdc.e2e.instance;

import static io.tablestorecdc.e2e.handover.OrdersStream.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.e2e.bench.InstanceThroughput;
import io.tablestorecdc.e2e.handover.DeliveryLog;
import io.tablestorecdc.e2e.handover.FlinkCapture;
import io.tablestorecdc.e2e.handover.Phases;
import io.tablestorecdc.e2e.handover.ResumePoints;
import io.tablestorecdc.e2e.handover.SeenChange;
import io.tablestorecdc.e2e.handover.SparkCapture;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.emulator.testkit.LogCapture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real-instance suite (docs/real-instance.md): what a Tablestore instance can show, reached
 * only by endpoint, instance name and credentials. Every table, tunnel and the meta table are
 * created under one prefix and deleted at the end. Against the environment's instance with {@code
 * mvn -B verify -Preal-instance}; against an emulator process in every build; skipped without
 * either.
 */
@Tag("real-instance")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealInstanceITCase {

    static final String ROWS = "tsc.real.instance.throughput.rows";
    static final String REPORT = "tsc.real.instance.report";
    static final String DELETE = "tsc.real.instance.delete.leftovers";

    private static final int BASE_ROWS = 100;

    /** Seconds of changes (about 200 a second) written in each step. */
    private static final double STEP = 0.5;

    private static final int RETENTION = 2;

    /** Generous: an instance shows a new tunnel's channels and its records seconds later. */
    private static final Duration CATCH_UP = Duration.ofMinutes(3);

    /**
     * Small Spark batches, so that a query is stopped with part of the stream still unread and
     * retention has snapshots to purge.
     */
    private static final Map<String, String> SMALL_BATCHES =
            Map.of(
                    "max.rows.per.channel",
                    "20",
                    "meta.retention.batches",
                    Integer.toString(RETENTION));

    /** Batches that end on server responses: a handover then repeats only the last batch. */
    private static final Map<String, String> WHOLE_RESPONSES =
            Map.of("meta.retention.batches", Integer.toString(RETENTION));

    @TempDir static Path work;
    static InstanceUnderTest instance;
    static String missing;
    static LogCapture logs;
    static PrefixedTables tables;
    static SparkSession spark;
    static String metaTable;
    static Phases phases;

    @BeforeAll
    static void connect() throws Exception {
        InstanceUnderTest.Resolution resolved = InstanceUnderTest.resolve();
        missing = resolved.reason();
        if (resolved.instance().isEmpty()) {
            return; // each test reports itself skipped, with the reason
        }
        instance = resolved.instance().get();
        logs =
                LogCapture.startWithStandardStreams(
                        Map.of(
                                "io.tablestorecdc", Level.DEBUG,
                                "com.alicloud", Level.INFO,
                                "org.apache.spark", Level.INFO,
                                "org.apache.flink", Level.INFO));
        phases = new Phases("real-instance");
        tables = PrefixedTables.open(instance.connection());
        metaTable = tables.name("meta");
        phases.reached("on " + instance + ", names under " + tables.prefix());
        reportLeftovers();
        spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc real-instance suite")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .config("spark.sql.streaming.numRecentProgressUpdates", "1000")
                        .getOrCreate();
        phases.reached("spark session started");
    }

    /** Names earlier runs left behind, and deletes them when asked to ({@value #DELETE}). */
    private static void reportLeftovers() {
        List<String> leftovers = tables.leftovers(Duration.ofHours(1), Instant.now());
        if (leftovers.isEmpty()) {
            return;
        }
        if (Boolean.getBoolean(DELETE)) {
            List<String> left = tables.deleteLeftovers(leftovers);
            phases.reached("deleted the tables of earlier runs " + leftovers + "; left: " + left);
        } else {
            phases.reached(
                    "tables of earlier runs (more than an hour old) are left on the instance: "
                            + leftovers
                            + "; run again with -D"
                            + DELETE
                            + "=true to delete them");
        }
    }

    /**
     * Skips each test, rather than the class, without an instance: the build then counts every test
     * of the suite as skipped (a class skipped in {@code BeforeAll} counts as no test).
     */
    @BeforeEach
    void requireAnInstance() {
        assumeTrue(instance != null, missing);
    }

    @AfterAll
    static void disconnect() {
        try {
            if (spark != null) {
                spark.stop();
                SparkSession.clearActiveSession();
                SparkSession.clearDefaultSession();
            }
        } finally {
            try {
                if (tables != null) {
                    tables.close();
                    phases.reached("deleted everything under " + tables.prefix());
                }
            } finally {
                if (logs != null) {
                    logs.close();
                }
                if (instance != null) {
                    instance.close();
                }
            }
        }
    }

    @Test
    @Order(1)
    void aSparkQueryResumesFromItsCheckpointKeepsItsMetaRowsBoundedAndFlinkTakesOver()
            throws Exception {
        InstanceOrders orders = InstanceOrders.create(tables, "orders_spark", metaTable, BASE_ROWS);
        InstanceOrders.Tunnel tunnel = orders.createTunnel("cdc");
        orders.writeChanges(STEP);
        phases.reached("orders table, tunnel and changes written");
        Path checkpoint = work.resolve("spark-checkpoint");
        long firstPart = orders.expected(tunnel);
        SparkCapture first = SparkCapture.start(spark, tunnel.target(), checkpoint, SMALL_BATCHES);
        try {
            awaitHealthy(
                    first::requireHealthy,
                    () -> first.log().keys().size() >= firstPart / 2,
                    "spark to read half of " + firstPart + " changes");
            phases.reached("spark read " + first.log().size() + " changes; stopping it");
        } finally {
            first.stop();
        }
        phases.reached("spark stopped");

        orders.writeChanges(STEP);
        long secondPart = orders.expected(tunnel);
        SparkCapture second =
                SparkCapture.start(spark, tunnel.target(), checkpoint, WHOLE_RESPONSES);
        try (SdkMetaTableClient client = metaClient()) {
            TunnelMeta store = new MetaTable(client).tunnel(tunnel.id());
            try {
                awaitHealthy(
                        second::requireHealthy,
                        () -> distinct(first.log(), second.log()).size() >= secondPart,
                        "the restarted query to read on to " + secondPart + " changes");
                awaitHealthy(
                        second::requireHealthy,
                        () -> keptBesidesBases(store.batchLog()).size() <= RETENTION + 1,
                        "old snapshots purged at the last batches' commits");
                assertThat(store.owner()).as("the running query's lease").isPresent();
                assertThat(store.lastTunnelClient()).isPresent();
                phases.reached("the restarted query read " + second.log().size() + " changes");
            } finally {
                second.stop();
            }
        }
        phases.reached("the restarted query stopped");
        assertThat(first.log().repeated()).as("repeated by the first run").isEmpty();
        assertThat(second.log().repeated()).as("repeated by the restarted run").isEmpty();
        assertAReRunBatchIsTheFirstRunsBatch(first.log(), second.log());
        assertThat(distinct(first.log(), second.log())).hasSize((int) secondPart);
        DeliveryLog spark = once(first.log(), second.log());
        assertThat(second.log().lastUnit().orElseThrow())
                .as("batches, so that retention had snapshots to purge")
                .isGreaterThan(2L * RETENTION);
        assertTheMetaTableHoldsTheChannelsRead(tunnel, spark, RETENTION + 1);

        awaitOwnerReleased(tunnel);
        orders.writeChanges(STEP);
        long all = orders.expected(tunnel);
        try (FlinkCapture flink = FlinkCapture.start(tunnel.target(), Optional.empty())) {
            awaitHealthy(
                    flink::requireHealthy,
                    () -> distinct(spark, flink.log()).size() >= all,
                    "flink to read on to all " + all + " changes");
            flink.cancel();
            phases.reached("flink took over and read " + flink.log().size() + " changes");

            assertThat(flink.log().repeated()).as("repeated by flink").isEmpty();
            assertThat(distinct(spark, flink.log())).hasSize((int) all);
            assertThat(ResumePoints.violations(spark, flink.log())).isEmpty();
            // Spark pushes a batch's positions when it plans the next: only its last batch can
            // be read again by the next consumer (its batches ended on server responses).
            long lastBatch = second.log().lastUnit().orElseThrow();
            Set<SeenChange.Key> both = new HashSet<>(spark.keys());
            both.retainAll(flink.log().keys());
            assertThat(spark.all())
                    .filteredOn(c -> both.contains(c.key()))
                    .allSatisfy(c -> assertThat(c.unit).as("batch of %s", c).isEqualTo(lastBatch));
            List<SeenChange> everything = new ArrayList<>(spark.all());
            everything.addAll(flink.log().all());
            assertInsertsUpdatesAndDeletesArrived(orders, everything);
        }
    }

    @Test
    @Order(2)
    void aFlinkJobStoppedWithASavepointResumesFromIt() throws Exception {
        InstanceOrders orders = InstanceOrders.create(tables, "orders_flink", metaTable, BASE_ROWS);
        InstanceOrders.Tunnel tunnel = orders.createTunnel("cdc");
        orders.writeChanges(STEP);
        long firstPart = orders.expected(tunnel);
        FlinkCapture first = FlinkCapture.start(tunnel.target(), Optional.empty());
        String savepoint;
        List<Long> completed;
        try {
            awaitHealthy(
                    first::requireHealthy,
                    () ->
                            first.log().keys().size() >= firstPart / 2
                                    && !first.completedCheckpoints().isEmpty(),
                    "flink to read half of " + firstPart + " changes and complete a checkpoint");
            savepoint = first.stopWithSavepoint(work.resolve("savepoints"));
            completed = first.completedCheckpoints();
        } finally {
            first.close();
        }
        phases.reached("flink stopped with a savepoint after " + first.log().size() + " changes");

        orders.writeChanges(STEP);
        long all = orders.expected(tunnel);
        // What the first job's sink committed: what arrived up to its last completed checkpoint
        // (the savepoint). The restored job must deliver exactly everything else.
        long last = completed.get(completed.size() - 1);
        List<SeenChange> committed =
                first.log().all().stream().filter(c -> c.unit <= last).toList();
        try (FlinkCapture second = FlinkCapture.start(tunnel.target(), Optional.of(savepoint))) {
            awaitHealthy(
                    second::requireHealthy,
                    () -> keys(committed).size() + second.log().keys().size() >= all,
                    "the restored job to read on to all " + all + " changes");
            // The job writes its meta snapshot after a checkpoint completes: look while it runs.
            assertTheMetaTableHoldsTheChannelsRead(tunnel, second.log(), 3);
            second.cancel();
            phases.reached("the restored job read " + second.log().size() + " changes");

            assertThat(first.log().repeated()).as("repeated by the first job").isEmpty();
            assertThat(second.log().repeated()).as("repeated by the restored job").isEmpty();
            Set<SeenChange.Key> again = keys(committed);
            again.retainAll(second.log().keys());
            assertThat(again).as("committed before the savepoint, delivered again").isEmpty();
            assertThat(keys(committed).size() + second.log().keys().size()).isEqualTo(all);
            List<SeenChange> everything = new ArrayList<>(committed);
            everything.addAll(second.log().all());
            assertInsertsUpdatesAndDeletesArrived(orders, everything);
        }
    }

    @Test
    @Order(3)
    void reportsTheReadThroughputOfEachEngineAndTheRawSdkLoop() throws Exception {
        int rows = Integer.getInteger(ROWS, 20_000);
        String table = tables.createTable("throughput", "id");
        phases.reached("throughput table created");
        List<InstanceThroughput.Figure> figures =
                new InstanceThroughput(instance.connection(), spark, metaTable)
                        .measure(table, rows, 2);
        List<String> lines = new ArrayList<>();
        lines.add("Read throughput on " + instance.connection() + ", " + rows + " rows:");
        figures.forEach(f -> lines.add("  " + f));
        Path report = Path.of(System.getProperty(REPORT, "target/real-instance-throughput.txt"));
        Files.createDirectories(report.toAbsolutePath().getParent());
        Files.write(report, lines, StandardCharsets.UTF_8);
        phases.reached("throughput measured");
        lines.forEach(System.out::println);
        System.out.println("  (written to " + report.toAbsolutePath() + ")");

        assertThat(figures)
                .extracting(InstanceThroughput.Figure::consumer)
                .containsExactly("raw", "spark", "flink");
        assertThat(figures).allSatisfy(f -> assertThat(f.records()).isEqualTo(rows));
    }

    @Test
    @Order(4)
    void noSecretAppearsInAnyLogLineOrOutput() {
        List<String> lines = logs.lines();
        assertThat(logs.events()).as("log events seen by the watch").isPositive();
        for (String secret : instance.secrets()) {
            assertThat(lines)
                    .as("log lines and output holding a secret")
                    .noneMatch(line -> line.contains(secret));
        }
    }

    // ---- checks ----

    /**
     * A batch that ran in the first query and again after the restart delivered exactly the same
     * changes, in the same order (invariant 1); no change arrived in two different batches.
     */
    private static void assertAReRunBatchIsTheFirstRunsBatch(DeliveryLog first, DeliveryLog again) {
        Map<Long, List<SeenChange.Key>> firstBatches = batches(first);
        Map<Long, List<SeenChange.Key>> secondBatches = batches(again);
        secondBatches.forEach(
                (batch, changes) -> {
                    if (firstBatches.containsKey(batch)) {
                        assertThat(changes)
                                .as("batch %d run again", batch)
                                .isEqualTo(firstBatches.get(batch));
                    }
                });
        Set<SeenChange.Key> overlap = new HashSet<>(first.keys());
        overlap.retainAll(again.keys());
        assertThat(again.all())
                .filteredOn(c -> overlap.contains(c.key()))
                .allSatisfy(c -> assertThat(firstBatches).containsKey(c.unit));
    }

    /** The replica the delivered changes make equals the table, and every kind of change came. */
    private static void assertInsertsUpdatesAndDeletesArrived(
            InstanceOrders orders, List<SeenChange> changes) {
        assertThat(orders.replicaDiff(changes).differences()).as("replica vs source").isEmpty();
        Set<OrderChange.Action> actions =
                changes.stream()
                        .filter(c -> !c.change.isBaseData())
                        .map(c -> c.change.action)
                        .collect(Collectors.toSet());
        assertThat(actions).containsExactlyInAnyOrder(OrderChange.Action.values());
        assertThat(changes).anyMatch(c -> c.change.isBaseData());
        assertThat(changes)
                .as("a partial update that removes a column")
                .anyMatch(c -> c.change.deleted.length > 0);
    }

    /**
     * The consumer's rows in the meta table, read through the core's {@link TunnelMeta}: a bounded
     * batch log whose newest snapshot reads back whole, with an entry for every channel read (the
     * tombstones of base channels read to their end among them).
     */
    private static void assertTheMetaTableHoldsTheChannelsRead(
            InstanceOrders.Tunnel tunnel, DeliveryLog read, int atMost) {
        Set<String> channels = read.byChannel().keySet();
        try (SdkMetaTableClient client = metaClient()) {
            TunnelMeta store = new MetaTable(client).tunnel(tunnel.id());
            await(
                    () -> newest(store, tunnel).channels().keySet().containsAll(channels),
                    CATCH_UP,
                    "a snapshot of every channel read, " + channels,
                    () -> "; newest: " + newest(store, tunnel).channels().keySet());
            BatchSnapshot snapshot = newest(store, tunnel);
            assertThat(snapshot.channels().values())
                    .extracting(c -> c.type())
                    .contains(ChannelType.BASE_DATA, ChannelType.STREAM);
            assertThat(keptBesidesBases(store.batchLog())).hasSizeLessThanOrEqualTo(atMost);
        }
    }

    /**
     * The tunnel's newest snapshot that reads back complete: the consumer writes a snapshot's log
     * row, manifest and entries one after another while it runs, so the very newest may still be in
     * the middle of its writes when the test looks.
     */
    private static BatchSnapshot newest(TunnelMeta store, InstanceOrders.Tunnel tunnel) {
        return store.newestSnapshot()
                .orElseThrow(
                        () ->
                                new AssertionError(
                                        "No complete snapshot for " + tunnel.target().tunnel()));
    }

    // ---- helpers ----

    private static SdkMetaTableClient metaClient() {
        return SdkMetaTableClient.connect(instance.connection().tablestoreEndpoint(), metaTable);
    }

    private static void awaitOwnerReleased(InstanceOrders.Tunnel tunnel) {
        try (SdkMetaTableClient client = metaClient()) {
            TunnelMeta store = new MetaTable(client).tunnel(tunnel.id());
            await(
                    () -> store.owner().isEmpty(),
                    CATCH_UP,
                    "the stopped consumer to release " + tunnel.target().tunnel());
        }
    }

    /** The logged snapshots other than the full ones a kept delta completes. */
    private static List<LoggedBatch> keptBesidesBases(List<LoggedBatch> log) {
        Set<BatchToken> bases = new HashSet<>();
        log.forEach(b -> b.base().ifPresent(bases::add));
        return log.stream().filter(b -> !bases.contains(b.token())).toList();
    }

    private static void awaitHealthy(Checked healthy, BooleanSupplier done, String what) {
        await(
                () -> {
                    healthy.runUnchecked();
                    return done.getAsBoolean();
                },
                CATCH_UP,
                what);
    }

    private static Set<SeenChange.Key> distinct(DeliveryLog first, DeliveryLog second) {
        Set<SeenChange.Key> keys = new HashSet<>(first.keys());
        keys.addAll(second.keys());
        return keys;
    }

    private static Set<SeenChange.Key> keys(List<SeenChange> changes) {
        return changes.stream().map(SeenChange::key).collect(Collectors.toCollection(HashSet::new));
    }

    /** Each change of two runs of one consumer once, in the order the runs delivered them. */
    private static DeliveryLog once(DeliveryLog first, DeliveryLog second) {
        DeliveryLog both = new DeliveryLog(first.engine());
        both.addAll(first.all());
        Set<SeenChange.Key> seen = first.keys();
        second.all().stream().filter(c -> !seen.contains(c.key())).forEach(both::add);
        return both;
    }

    private static Map<Long, List<SeenChange.Key>> batches(DeliveryLog log) {
        return log.all().stream()
                .collect(
                        Collectors.groupingBy(
                                c -> c.unit,
                                Collectors.mapping(SeenChange::key, Collectors.toList())));
    }

    /** A health check that may throw a checked exception. */
    @FunctionalInterface
    interface Checked {
        void run() throws Exception;

        default void runUnchecked() {
            try {
                run();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
