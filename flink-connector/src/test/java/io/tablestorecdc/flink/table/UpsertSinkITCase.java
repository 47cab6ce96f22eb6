package io.tablestorecdc.flink.table;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.UpdateTableRequest;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.FlinkJobs;
import io.tablestorecdc.flink.testing.FlinkLine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code INSERT INTO replica SELECT ... FROM src}: a real SQL job from the {@code tablestore-cdc}
 * source into a test upsert sink ({@link ReplicaSinkFactory}); the replica must end equal to the
 * Tablestore table as GetRange reads it.
 */
class UpsertSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String UPSERT_INSERT = "INSERT INTO replica SELECT id, v, name FROM src";

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private final List<TableResult> jobs = new ArrayList<>();
    private StreamTableEnvironment tEnv;
    private String table;
    private String tunnel;
    private String replica;

    @BeforeEach
    void setUp() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(300); // channels finished by a split are committed on checkpoints
        env.setParallelism(2);
        tEnv = StreamTableEnvironment.create(env);
        table = bed.newTable("upsert_t");
        tunnel = table + "_tunnel";
        replica = table + "_replica";
        bed.createStreamTunnel(table, tunnel);
    }

    @AfterEach
    void cancelJobs() {
        jobs.forEach(job -> job.getJobClient().ifPresent(FlinkJobs::cancelAndAwaitEnd));
    }

    @Test
    void theReplicaEqualsTheTableAfterPartialUpdatesDeletesAReInsertAndASplit() {
        createSource("");
        createReplica("PRIMARY KEY (id) NOT ENFORCED", "upsert");
        run(UPSERT_INSERT);

        put("a", 1, "x");
        put("b", 2, "y");
        put("c", 3, "z");
        put("n", 4, "w");
        put("t", 5, "u");
        updateV("a", 10); // name untouched: stays 'x'
        updateName("b", "y2"); // v untouched: stays 2
        deleteName("c");
        delete("n");
        awaitReplicaEqualsTable();
        assertThat(tableState())
                .containsEntry(List.of("a"), Arrays.asList("a", 10L, "x"))
                .containsEntry(List.of("b"), Arrays.asList("b", 2L, "y2"))
                .containsEntry(List.of("c"), Arrays.asList("c", 3L, null))
                .doesNotContainKey(List.of("n"));

        assertThat(bed.emulator().tunnels().split(table, key("m"))).hasSize(2);
        put("n", 40, "back"); // re-insert of a deleted key, right of the split
        updateV("b", 20); // left of the split
        updateName("t", "u2");
        delete("a");
        deleteName("b");
        put("d", 6, "new");
        awaitReplicaEqualsTable();
        assertThat(tableState())
                .containsEntry(List.of("n"), Arrays.asList("n", 40L, "back"))
                .containsEntry(List.of("b"), Arrays.asList("b", 20L, null))
                .containsEntry(List.of("t"), Arrays.asList("t", 5L, "u2"))
                .doesNotContainKey(List.of("a"));

        assertThat(ReplicaSinkFactory.kinds(replica))
                .as("the upsert sink is never sent UPDATE_BEFORE")
                .containsExactlyInAnyOrder(RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE);
    }

    @Test
    void insertOnlyModeAppendsEveryChangeToAnAppendSink() {
        createSource(
                ", op STRING METADATA FROM 'op' VIRTUAL", ", 'changelog.mode' = 'insert-only'");
        tEnv.executeSql(
                "CREATE TABLE log (id STRING, v BIGINT, name STRING, op STRING)"
                        + replicaOptions("append"));
        run("INSERT INTO log SELECT id, v, name, op FROM src");

        put("a", 1, "x");
        updateV("a", 2);
        deleteName("a");
        delete("a");

        List<List<Object>> expected =
                List.of(
                        Arrays.asList("a", 1L, "x", "PUT"),
                        Arrays.asList("a", 2L, null, "UPDATE"),
                        Arrays.asList("a", null, null, "UPDATE"),
                        Arrays.asList("a", null, null, "DELETE"));
        await(
                () -> ReplicaSinkFactory.appended(replica).equals(expected),
                () -> "appended " + ReplicaSinkFactory.appended(replica));
        assertThat(ReplicaSinkFactory.kinds(replica)).containsExactly(RowKind.INSERT);
    }

    /**
     * No update-before anywhere and no upsert materializer. Flink 1.20's planner normalizes the
     * upsert stream by key ahead of the sink; Flink 2.x's planner sees that the sink's key is the
     * source's and applies the upserts as they come, with deletes that need only the key (PD).
     */
    @Test
    void thePlanNormalizesTheUpsertStreamWithoutUpdateBefore() {
        createSource("");
        createReplica("PRIMARY KEY (id) NOT ENFORCED", "upsert");

        String plan = tEnv.explainSql(UPSERT_INSERT, ExplainDetail.CHANGELOG_MODE);

        String optimized = plan.substring(plan.indexOf("== Optimized Physical Plan =="));
        assertThat(optimized)
                .as(plan)
                .doesNotContain("UB")
                .doesNotContain("SinkUpsertMaterializer")
                .doesNotContain("upsertMaterialize=[true]");
        if (FlinkLine.isFlink2()) {
            assertThat(optimized)
                    .as(plan)
                    .contains("TableSourceScan(table=[[default_catalog, default_database, src]]")
                    .contains("changelogMode=[I,UA,PD]")
                    .doesNotContain("ChangelogNormalize");
        } else {
            assertThat(optimized)
                    .as(plan)
                    .contains("changelogMode=[I,UA,D]")
                    .contains("ChangelogNormalize(key=[id]");
        }
    }

    @Test
    void anInsertOnlySourcePlansAsAnAppendWithoutNormalization() {
        createSource("", ", 'changelog.mode' = 'insert-only'");
        createReplica("", "append");

        String plan = tEnv.explainSql(UPSERT_INSERT, ExplainDetail.CHANGELOG_MODE);

        String optimized = plan.substring(plan.indexOf("== Optimized Physical Plan =="));
        assertThat(optimized)
                .as(plan)
                .contains("changelogMode=[NONE]")
                .contains("changelogMode=[I]")
                .doesNotContain("ChangelogNormalize")
                .doesNotContain("UA");
    }

    @Test
    @Timeout(120)
    void allModeSendsEveryChangeWithItsBeforeImageAndKeepsNoState() throws Exception {
        table = bed.newTableWithBeforeImages("all_t", "v", "name");
        bed.createStreamTunnel(table, tunnel);
        createSource(", 'changelog.mode' = 'all'");
        TableResult select = tEnv.executeSql("SELECT id, v, name FROM src");
        jobs.add(select);

        put("a", 1, "x");
        updateV("a", 10); // name untouched: the after-image keeps 'x'
        deleteName("a");
        put("a", 2, "y"); // a whole-row put over an existing row
        delete("a");
        updateV("b", 5); // a row this stream never saw before: an insert
        delete("z"); // a row that never existed: a DELETE with the key alone

        List<String> expected =
                List.of(
                        "+I[a, 1, x]",
                        "-U[a, 1, x]",
                        "+U[a, 10, x]",
                        "-U[a, 10, x]",
                        "+U[a, 10, null]",
                        "-U[a, 10, null]",
                        "+U[a, 2, y]",
                        "-D[a, 2, y]",
                        "+I[b, 5, null]",
                        "-D[z, null, null]");
        List<String> seen = new ArrayList<>();
        try (var rows = select.collect()) { // hasNext waits for the next row (the test's timeout)
            while (seen.size() < expected.size() && rows.hasNext()) {
                seen.add(rows.next().toString());
            }
        }
        assertThat(seen).isEqualTo(expected);
        String plan = tEnv.explainSql("SELECT id, v, name FROM src", ExplainDetail.CHANGELOG_MODE);
        assertThat(plan)
                .as("nothing keyed behind the source: no MergePartialUpdates, no normalization")
                .contains("changelogMode=[I,UB,UA,D]")
                .doesNotContain("ChangelogNormalize");
    }

    @Test
    void allModeIntoAnUpsertSinkNeedsNoChangelogNormalize() {
        table = bed.newTableWithBeforeImages("all_t", "v", "name");
        createSource(", 'changelog.mode' = 'all'");
        createReplica("PRIMARY KEY (id) NOT ENFORCED", "upsert");

        String plan = tEnv.explainSql(UPSERT_INSERT, ExplainDetail.CHANGELOG_MODE);

        String optimized = plan.substring(plan.indexOf("== Optimized Physical Plan =="));
        assertThat(optimized)
                .as(plan)
                .contains("TableSourceScan")
                .doesNotContain("ChangelogNormalize")
                .doesNotContain("SinkUpsertMaterializer");
    }

    @Test
    void allModeOnAStreamWithoutTheBeforeImagesItNeedsFailsNamingTheColumns() {
        table = bed.newTableWithBeforeImages("all_t", "v");
        createSource(", 'changelog.mode' = 'all'");

        assertThatThrownBy(() -> tEnv.explainSql("SELECT id, v, name FROM src"))
                .hasStackTraceContaining("'changelog.mode' = 'all'")
                .hasStackTraceContaining("carries no before-image of [name]")
                .hasStackTraceContaining("its origin columns are [v]")
                .hasStackTraceContaining("addOriginColumnsToGet")
                .hasStackTraceContaining("'changelog.mode' = 'upsert'");
    }

    @Test
    @Timeout(120)
    void allModeWorksOnceUpdateTableGivesTheRunningStreamItsOriginColumns() throws Exception {
        table = bed.newTableWithBeforeImages("all_t", "v");
        bed.createStreamTunnel(table, tunnel);
        createSource(", 'changelog.mode' = 'all'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT id, v, name FROM src"))
                .hasStackTraceContaining("carries no before-image of [name]")
                .hasStackTraceContaining("UpdateTable");

        UpdateTableRequest update = new UpdateTableRequest(table);
        StreamSpecification stream = new StreamSpecification(true, 24);
        stream.addOriginColumnsToGet(new String[] {"v", "name"});
        update.setStreamSpecification(stream);
        bed.sync().updateTable(update);
        TableResult select = tEnv.executeSql("SELECT id, v, name FROM src");
        jobs.add(select);
        put("a", 1, "x");
        updateV("a", 10);

        List<String> expected = List.of("+I[a, 1, x]", "-U[a, 1, x]", "+U[a, 10, x]");
        List<String> seen = new ArrayList<>();
        try (var rows = select.collect()) {
            while (seen.size() < expected.size() && rows.hasNext()) {
                seen.add(rows.next().toString());
            }
        }
        assertThat(seen).isEqualTo(expected);
    }

    // ---- harness ----

    private void run(String insert) {
        jobs.add(tEnv.executeSql(insert));
    }

    private void createSource(String extraOptions) {
        createSource(", PRIMARY KEY (id) NOT ENFORCED", extraOptions);
    }

    private void createSource(String extraColumns, String extraOptions) {
        tEnv.executeSql(
                "CREATE TABLE src (id STRING, v BIGINT, name STRING"
                        + extraColumns
                        + ") WITH ('connector' = 'tablestore-cdc'"
                        + option("endpoint", bed.emulator().endpoint())
                        + option("instance.name", bed.emulator().instanceName())
                        + option("access.key.id", bed.emulator().accessKeyId())
                        + option("access.key.secret", bed.emulator().accessKeySecret())
                        + option("table.name", table)
                        + option("tunnel.name", tunnel)
                        + option("discovery.interval", "200ms")
                        + option("heartbeat.interval", "5s")
                        + extraOptions
                        + ")");
    }

    private void createReplica(String primaryKey, String mode) {
        tEnv.executeSql(
                "CREATE TABLE replica (id STRING, v BIGINT, name STRING"
                        + (primaryKey.isEmpty() ? "" : ", " + primaryKey)
                        + ")"
                        + replicaOptions(mode));
    }

    private String replicaOptions(String mode) {
        return " WITH ('connector' = '"
                + ReplicaSinkFactory.IDENTIFIER
                + "'"
                + option("replica", replica)
                + option("mode", mode)
                + ")";
    }

    private static String option(String key, String value) {
        return ", '" + key + "' = '" + value + "'";
    }

    private void awaitReplicaEqualsTable() {
        await(
                () -> ReplicaSinkFactory.upserted(replica).equals(tableState()),
                () ->
                        "replica "
                                + ReplicaSinkFactory.upserted(replica)
                                + " but the table holds "
                                + tableState());
    }

    /** Polls until {@code done}; a failing job or the deadline fails the test with progress. */
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
            // Each poll reads the whole table through GetRange: pace it on the shared CPUs.
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    /** The table's rows as GetRange reads them: key (id) to (id, v, name). */
    private Map<List<Object>, List<Object>> tableState() {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(bound(PrimaryKeyValue.INF_MIN));
        range.setExclusiveEndPrimaryKey(bound(PrimaryKeyValue.INF_MAX));
        range.setMaxVersions(1);
        Map<List<Object>, List<Object>> state = new LinkedHashMap<>();
        while (true) {
            GetRangeResponse page = bed.sync().getRange(new GetRangeRequest(range));
            for (Row row : page.getRows()) {
                String id = row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString();
                state.put(List.of(id), Arrays.asList(id, v(row), name(row)));
            }
            if (page.getNextStartPrimaryKey() == null) {
                return state;
            }
            range.setInclusiveStartPrimaryKey(page.getNextStartPrimaryKey());
        }
    }

    private static Long v(Row row) {
        return row.contains("v") ? row.getLatestColumn("v").getValue().asLong() : null;
    }

    private static String name(Row row) {
        return row.contains("name") ? row.getLatestColumn("name").getValue().asString() : null;
    }

    private static PrimaryKey bound(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn("id", value).build();
    }

    private void put(String id, long v, String name) {
        bed.put(
                table,
                id,
                new Column("v", ColumnValue.fromLong(v)),
                new Column("name", ColumnValue.fromString(name)));
    }

    private void updateV(String id, long v) {
        bed.update(table, id, new Column("v", ColumnValue.fromLong(v)));
    }

    private void updateName(String id, String name) {
        bed.update(table, id, new Column("name", ColumnValue.fromString(name)));
    }

    private void deleteName(String id) {
        bed.deleteColumn(table, id, "name");
    }

    private void delete(String id) {
        bed.delete(table, id);
    }
}
