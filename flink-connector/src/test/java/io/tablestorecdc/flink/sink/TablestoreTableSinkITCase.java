package io.tablestorecdc.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code 'connector' = 'tablestore'} as a SQL sink on the emulator: each option, partial updates,
 * deletes written or ignored, and {@code tablestore-cdc → tablestore} replication compared by
 * GetRange.
 */
class TablestoreTableSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static EmulatorBed bed;

    private final List<TableResult> jobs = new ArrayList<>();
    private StreamExecutionEnvironment env;
    private StreamTableEnvironment tEnv;

    @BeforeAll
    static void startEmulator() {
        bed = EmulatorBed.start();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @AfterEach
    void cancelJobs() {
        jobs.forEach(job -> job.getJobClient().ifPresent(FlinkJobs::cancelAndAwaitEnd));
    }

    private void environment(long checkpointMillis) {
        env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
        }
        env.setParallelism(2);
        tEnv = StreamTableEnvironment.create(env);
    }

    @Test
    void putModeReplacesTheStoredRow() throws Exception {
        environment(0);
        String table = bed.newTable("sink_put_");
        bed.put(table, "a", col("v", 1), col("name", "x"), col("old", "kept?"));
        createSink("sink_out", table, "");

        tEnv.executeSql("INSERT INTO sink_out VALUES ('a', 2, CAST(NULL AS STRING)), ('b', 3, 'y')")
                .await();

        assertThat(scan(table))
                .containsExactly(
                        Map.entry("a", Map.of("v", 2L)),
                        Map.entry("b", Map.of("v", 3L, "name", "y")));
    }

    @Test
    void oneTableIsASinkAScanAndALookupWithTheOptionsOfAll() throws Exception {
        environment(0);
        String table = bed.newTable("sink_all_");
        createSink(
                "everything",
                table,
                ", 'sink.write-mode' = 'update', 'sink.buffer-flush.max-rows' = '10'"
                        + ", 'scan.split-size' = '8 mb', 'lookup.async' = 'false'"
                        + ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10'");

        tEnv.executeSql("INSERT INTO everything VALUES ('a', 1, 'x'), ('b', 2, 'y')").await();

        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it =
                tEnv.executeSql("SELECT id, v, name FROM everything").collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        assertThat(rows).containsExactlyInAnyOrder("+I[a, 1, x]", "+I[b, 2, y]");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW probes AS SELECT k, PROCTIME() AS pt FROM (VALUES ('b'),"
                        + " ('c')) AS t(k)");
        List<String> joined = new ArrayList<>();
        try (CloseableIterator<Row> it =
                tEnv.executeSql(
                                "SELECT p.k, e.v FROM probes AS p LEFT JOIN everything FOR"
                                        + " SYSTEM_TIME AS OF p.pt AS e ON p.k = e.id")
                        .collect()) {
            it.forEachRemaining(row -> joined.add(row.toString()));
        }
        assertThat(joined).containsExactlyInAnyOrder("+I[b, 2]", "+I[c, null]");
    }

    @Test
    void updateModeChangesOnlyTheGivenColumnsAndDeletesNullOnes() throws Exception {
        environment(0);
        String table = bed.newTable("sink_update_");
        bed.put(table, "a", col("v", 1), col("name", "x"), col("old", "kept"));
        createSink("sink_out", table, ", 'sink.write-mode' = 'update'");

        tEnv.executeSql("INSERT INTO sink_out VALUES ('a', 5, CAST(NULL AS STRING)), ('b', 6, 'z')")
                .await();

        assertThat(scan(table))
                .containsExactly(
                        Map.entry("a", Map.of("v", 5L, "old", "kept")),
                        Map.entry("b", Map.of("v", 6L, "name", "z")));
    }

    @Test
    void aReplicaOfTheCdcSourceEqualsTheSourceAfterInsertsUpdatesAndDeletes() {
        environment(300);
        String source = bed.newTable("sink_src_");
        String replica = bed.newTable("sink_replica_");
        startReplication(source, replica, "");

        changeSource(source);

        await(() -> scan(replica).equals(scan(source)), () -> differences(source, replica));
        assertThat(scan(replica)).containsOnlyKeys("a", "b", "d", "e");
        assertThat(scan(replica).get("b")).isEqualTo(Map.of("v", 20L));
    }

    @Test
    void ignoredDeletesLeaveTheRowsInTheReplica() {
        environment(300);
        String source = bed.newTable("sink_src_");
        String replica = bed.newTable("sink_replica_");
        startReplication(source, replica, ", 'sink.ignore-delete' = 'true'");

        changeSource(source);
        bed.put(source, "z", col("v", 99)); // the last change: when it is there, all are

        await(
                () -> scan(replica).containsKey("z") && scan(replica).containsKey("e"),
                () -> differences(source, replica));
        assertThat(scan(replica)).containsKey("c");
        assertThat(scan(source)).doesNotContainKey("c");
    }

    // Without checkpoints the sink is fed by an unbounded generator: the CDC source refuses to
    // run without checkpointing.

    @Test
    void withoutCheckpointsTheIntervalWritesTheBuffer() {
        environment(0);
        String replica = bed.newTable("sink_replica_");
        startGeneratedFeed(
                replica,
                ", 'sink.buffer-flush.interval' = '200ms', 'sink.buffer-flush.max-rows' = '200'");

        // A full buffer takes 200 s of the feed, far longer than the wait: only the interval
        // writes the rows.
        await(() -> !scan(replica).isEmpty(), () -> "replica " + scan(replica));
    }

    @Test
    void withoutCheckpointsOrIntervalAFullBufferIsWritten() {
        environment(0);
        String replica = bed.newTable("sink_replica_");
        startGeneratedFeed(
                replica,
                ", 'sink.buffer-flush.interval' = '0', 'sink.buffer-flush.max-rows' = '2',"
                        + " 'sink.parallelism' = '1'");

        await(() -> scan(replica).size() >= 2, () -> "replica " + scan(replica));
    }

    @Test
    void sinkParallelismSetsTheWritersParallelism() {
        environment(0);
        String replica = bed.newTable("sink_par_");
        createSink("sink_out", replica, ", 'sink.parallelism' = '3'");
        StreamStatementSet set = tEnv.createStatementSet();
        set.addInsertSql("INSERT INTO sink_out VALUES ('a', 1, 'x')");
        set.attachAsDataStream();
        StreamGraph graph = env.getStreamGraph();

        List<Integer> writers = new ArrayList<>();
        for (StreamNode node : graph.getStreamNodes()) {
            if (node.getOperatorName().contains("Writer")) {
                writers.add(node.getParallelism());
            }
        }
        assertThat(writers).containsExactly(3);
    }

    @Test
    void aPrimaryKeyOtherThanTheTablesIsRefusedNamingBoth() {
        environment(0);
        String table = newTableWithIntegerKey();
        createSink("sink_out", table, "");

        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO sink_out VALUES ('a', 1, 'x')"))
                .hasStackTraceContaining("declares PRIMARY KEY (id STRING NOT NULL)")
                .hasStackTraceContaining("has primary key (id INTEGER)");
    }

    @Test
    void aDdlWithoutPrimaryKeyOrWithBadOptionsIsRefused() {
        environment(0);
        String table = bed.newTable("sink_bad_");
        tEnv.executeSql(
                "CREATE TABLE nokey (id STRING, v BIGINT) WITH ('connector' = 'tablestore'"
                        + connection(table)
                        + ")");
        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO nokey VALUES ('a', 1)"))
                .hasStackTraceContaining("has no primary key")
                .hasStackTraceContaining("PRIMARY KEY (id) NOT ENFORCED");

        createSink("badmode", table, ", 'sink.write-mode' = 'merge'");
        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO badmode VALUES ('a', 1, 'x')"))
                .hasStackTraceContaining(
                        "Option 'sink.write-mode' has invalid value 'merge': use put (default) or"
                                + " update");

        createSink("badrows", table, ", 'sink.buffer-flush.max-rows' = '500'");
        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO badrows VALUES ('a', 1, 'x')"))
                .hasStackTraceContaining(
                        "Option 'sink.buffer-flush.max-rows' has invalid value '500': use a whole"
                                + " number from 1 to 200");
    }

    @Test
    void failedRequestsAreRetriedUpToSinkMaxRetries() throws Exception {
        environment(0);
        String table = bed.newTable("sink_retry_");
        try {
            bed.emulator()
                    .faults()
                    .add(Faults.Rule.error("BatchWriteRow", "OTSInternalServerError", 500, 2));
            createSink("retrying", table, "");
            tEnv.executeSql("INSERT INTO retrying VALUES ('a', 1, 'x')").await();
            assertThat(scan(table)).containsOnlyKeys("a");

            bed.emulator()
                    .faults()
                    .add(Faults.Rule.error("BatchWriteRow", "OTSInternalServerError", 500, 1));
            createSink("not_retrying", table, ", 'sink.max-retries' = '0'");
            assertThatThrownBy(
                            () ->
                                    tEnv.executeSql("INSERT INTO not_retrying VALUES ('b', 2, 'y')")
                                            .await())
                    .hasStackTraceContaining(
                            "A BatchWriteRow request of 1 row(s) to table " + table)
                    .hasStackTraceContaining("OTSInternalServerError");
            assertThat(scan(table)).doesNotContainKey("b");
        } finally {
            bed.emulator().faults().clear();
        }
    }

    // ---- harness ----

    private void startReplication(String source, String replica, String sinkOptions) {
        String tunnel = source + "_tunnel";
        bed.createStreamTunnel(source, tunnel);
        tEnv.executeSql(
                "CREATE TABLE src (id STRING, v BIGINT, name STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('connector' = 'tablestore-cdc'"
                        + connection(source)
                        + option("tunnel.name", tunnel)
                        + option("discovery.interval", "200ms")
                        + option("heartbeat.interval", "5s")
                        + ")");
        createSink("replica", replica, sinkOptions);
        jobs.add(tEnv.executeSql("INSERT INTO replica SELECT id, v, name FROM src"));
    }

    /** An unbounded feed of one generated row a second into {@code replica}. */
    private void startGeneratedFeed(String replica, String sinkOptions) {
        tEnv.executeSql(
                "CREATE TABLE feed (id STRING, v BIGINT, name STRING) WITH ('connector' ="
                        + " 'datagen', 'rows-per-second' = '1', 'fields.id.length' = '12',"
                        + " 'fields.name.length' = '4')");
        createSink("replica", replica, sinkOptions);
        jobs.add(tEnv.executeSql("INSERT INTO replica SELECT id, v, name FROM feed"));
    }

    private void changeSource(String source) {
        bed.put(source, "a", col("v", 1), col("name", "x"));
        bed.put(source, "b", col("v", 2), col("name", "y"));
        bed.put(source, "c", col("v", 3), col("name", "z"));
        bed.update(source, "a", col("v", 10));
        bed.deleteColumn(source, "b", "name");
        bed.update(source, "b", col("v", 20));
        bed.delete(source, "c");
        bed.put(source, "d", col("v", 4));
        bed.put(source, "e", col("name", "only-name"));
    }

    private void createSink(String name, String table, String extraOptions) {
        tEnv.executeSql(
                "CREATE TABLE "
                        + name
                        + " (id STRING, v BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('connector' = 'tablestore'"
                        + connection(table)
                        + extraOptions
                        + ")");
    }

    private static String connection(String table) {
        return option("endpoint", bed.emulator().endpoint())
                + option("instance.name", bed.emulator().instanceName())
                + option("access.key.id", bed.emulator().accessKeyId())
                + option("access.key.secret", bed.emulator().accessKeySecret())
                + option("table.name", table);
    }

    private static String option(String key, String value) {
        return ", '" + key + "' = '" + value + "'";
    }

    private static String newTableWithIntegerKey() {
        String table = "sink_intkey_" + System.nanoTime();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return table;
    }

    private static Column col(String name, long value) {
        return new Column(name, ColumnValue.fromLong(value));
    }

    private static Column col(String name, String value) {
        return new Column(name, ColumnValue.fromString(value));
    }

    private static Map<String, Map<String, Object>> scan(String table) {
        return TableRows.scan(bed.sync(), table);
    }

    private static String differences(String source, String replica) {
        return "source " + scan(source) + " but replica " + scan(replica);
    }

    /** Polls until {@code done}; a failing job or the deadline fails the test. */
    private void await(Supplier<Boolean> done, Supplier<String> progress) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!done.get()) {
            for (TableResult job : jobs) {
                job.getJobClient()
                        .ifPresent(
                                c ->
                                        assertThat(c.getJobExecutionResult())
                                                .as("the job ended; " + progress.get())
                                                .isNotDone());
            }
            assertThat(System.nanoTime())
                    .as("timed out after " + TIMEOUT + "; " + progress.get())
                    .isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }
}
