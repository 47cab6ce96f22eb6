package io.tablestorecdc.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.InstanceMetadataStub;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code 'connector' = 'tablestore-cdc'} in SQL, against the emulator. */
class TablestoreCdcTableITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private final List<TableResult> queries = new ArrayList<>();
    private StreamTableEnvironment tEnv;
    private String table;
    private String tunnel;

    @BeforeEach
    void setUp() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(300);
        env.setParallelism(2);
        tEnv = StreamTableEnvironment.create(env);
        table = bed.newTable("sql_t");
        tunnel = table + "_tunnel";
        bed.createStreamTunnel(table, tunnel);
    }

    @AfterEach
    void cancelQueries() {
        queries.forEach(query -> query.getJobClient().ifPresent(FlinkJobs::cancelAndAwaitEnd));
    }

    private TableResult query(String sql) {
        return query(tEnv, sql);
    }

    private TableResult query(StreamTableEnvironment env, String sql) {
        TableResult result = env.executeSql(sql);
        queries.add(result);
        return result;
    }

    @Test
    void anUpsertQueryEndsWithTheSourceTablesStateAfterPartialUpdatesAndDeletes() throws Exception {
        tEnv.executeSql(ddl("src", "PRIMARY KEY (id) NOT ENFORCED", ""));
        TableResult result = query("SELECT id, v, name FROM src");

        put("a", 1, "x");
        put("b", 2, "y");
        updateV("a", 10); // partial: name untouched, must stay 'x'
        delete("b");
        put("c", 3, "z");
        deleteName("c");

        Map<String, List<Object>> expected = new TreeMap<>();
        expected.put("a", Arrays.asList("a", 10L, "x"));
        expected.put("c", Arrays.asList("c", 3L, null));
        assertThat(materializeUntil(result, expected)).isEqualTo(expected);
    }

    @Test
    void aQueryWithAnEndPositionEndsWithTheStateAtThatPosition() throws Exception {
        put("a", 1, "x");
        updateV("a", 10);
        put("b", 2, "y");
        java.time.Instant end = java.time.Instant.now();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!java.time.Instant.now().isAfter(end.plusMillis(2))) {
            assertThat(System.nanoTime()).as("the clock moves").isLessThan(deadline);
            Thread.onSpinWait();
        }
        put("c", 3, "z"); // after the end
        delete("a");
        tEnv.executeSql(
                ddl(
                        "src",
                        "PRIMARY KEY (id) NOT ENFORCED",
                        ", 'scan.bounded.stop-at' = '" + end + "'"));
        TableResult result = query("SELECT id, v, name FROM src");

        Map<String, List<Object>> state = new TreeMap<>();
        readUntil(result, row -> apply(state, row) && false, () -> "state " + state);

        Map<String, List<Object>> expected = new TreeMap<>();
        expected.put("a", Arrays.asList("a", 10L, "x"));
        expected.put("b", Arrays.asList("b", 2L, "y"));
        assertThat(state).isEqualTo(expected);
        assertThat(result.getJobClient().orElseThrow().getJobStatus().get())
                .isEqualTo(org.apache.flink.api.common.JobStatus.FINISHED);
    }

    @Test
    void anUnboundedReadWithoutCheckpointingIsRefusedBeforeTheJobStartsNamingTheSetting() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment plain = StreamTableEnvironment.create(env);
        plain.executeSql(ddl("src", "PRIMARY KEY (id) NOT ENFORCED", ""));

        assertThatThrownBy(() -> query(plain, "SELECT id, v, name FROM src"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("needs checkpointing")
                .hasMessageContaining("SET 'execution.checkpointing.interval' = '10s';")
                .hasMessageContaining("'scan.bounded.stop-at'");
        assertThat(queries).isEmpty(); // no job was submitted
    }

    @Test
    void checkpointingSetInTheSessionOrABoundedReadIsEnough() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment session = StreamTableEnvironment.create(env);
        // What the SQL Client's SET does: the session's configuration, not the environment's.
        session.getConfig().set("execution.checkpointing.interval", "300ms");
        session.executeSql(ddl("src", "PRIMARY KEY (id) NOT ENFORCED", ""));
        TableResult unbounded = query(session, "SELECT id, v, name FROM src");
        put("a", 1, "x");
        assertThat(collect(unbounded, 1)).extracting(r -> r.getField(0)).containsExactly("a");

        StreamTableEnvironment plain =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        plain.executeSql(
                ddl(
                        "upto",
                        "PRIMARY KEY (id) NOT ENFORCED",
                        ", 'scan.bounded.stop-at' = '" + java.time.Instant.now() + "'"));
        assertThat(query(plain, "SELECT id FROM upto").getJobClient()).isPresent();
    }

    @Test
    void insertOnlyModeAppendsEveryChangeWithItsMetadata() throws Exception {
        tEnv.executeSql(
                ddl(
                        "log",
                        "op STRING METADATA FROM 'op' VIRTUAL, channel STRING METADATA VIRTUAL,"
                                + " tbl STRING METADATA FROM 'table_name' VIRTUAL",
                        ", 'changelog.mode' = 'insert-only'"));
        TableResult result = query("SELECT id, v, op, channel, tbl FROM log");

        put("a", 1, "x");
        updateV("a", 2);
        delete("a");

        List<Row> rows = collect(result, 3);
        assertThat(rows).extracting(Row::getKind).containsOnly(RowKind.INSERT);
        assertThat(rows)
                .extracting(r -> r.getField(0) + " " + r.getField(1) + " " + r.getField(2))
                .containsExactly("a 1 PUT", "a 2 UPDATE", "a null DELETE");
        assertThat(rows).extracting(r -> (String) r.getField(3)).allMatch(c -> !c.isEmpty());
        assertThat(rows).extracting(r -> r.getField(4)).containsOnly(table);
    }

    @Test
    void severalTablesAppendEveryChangeOfEachNamingItsTable() throws Exception {
        String other = bed.newTable("sql_other");
        bed.createStreamTunnel(other, tunnel); // the same tunnel name on every table
        tEnv.executeSql(
                severalTables(
                        ddl(
                                "pair",
                                "op STRING METADATA FROM 'op' VIRTUAL,"
                                        + " tbl STRING METADATA FROM 'table_name' VIRTUAL",
                                ", 'changelog.mode' = 'insert-only'"),
                        other));
        TableResult result = query("SELECT tbl, id, v, op FROM pair");

        put("a", 1, "x");
        bed.put(other, "a", new Column("v", ColumnValue.fromLong(7)));
        updateV("a", 2);
        bed.delete(other, "a");

        List<Row> rows = collect(result, 4);
        assertThat(rows).extracting(Row::getKind).containsOnly(RowKind.INSERT);
        assertThat(rows)
                .extracting(r -> r.getField(0) + " " + r.getField(1) + " " + r.getField(2))
                .containsExactlyInAnyOrder(
                        table + " a 1", table + " a 2", other + " a 7", other + " a null");
        assertThat(rows.stream().filter(r -> r.getField(0).equals(table)))
                .extracting(r -> r.getField(3))
                .containsExactly("PUT", "UPDATE");
        assertThat(rows.stream().filter(r -> r.getField(0).equals(other)))
                .extracting(r -> r.getField(3))
                .containsExactly("PUT", "DELETE");
    }

    @Test
    void tablesOfOtherKeysAndColumnsShareOneRowTypeThroughTheValuesMap() throws Exception {
        String other = "sql_numbered" + System.nanoTime();
        TableMeta meta = new TableMeta(other);
        meta.addPrimaryKeyColumn("num", PrimaryKeyType.INTEGER);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        bed.createStreamTunnel(other, tunnel);
        tEnv.executeSql(
                ddlOf(
                        "everything",
                        "id STRING, num BIGINT, _values MAP<STRING, STRING>,"
                                + " tbl STRING METADATA FROM 'table_name' VIRTUAL",
                        ", 'table.name' = '"
                                + table
                                + ","
                                + other
                                + "', 'changelog.mode' = 'insert-only'"));
        TableResult result = query("SELECT tbl, id, num, _values FROM everything");

        put("a", 1, "x");
        RowPutChange numbered =
                new RowPutChange(
                        other,
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("num", PrimaryKeyValue.fromLong(5))
                                .build());
        numbered.addColumn(new Column("price", ColumnValue.fromDouble(2.5)));
        numbered.addColumn(new Column("ok", ColumnValue.fromBoolean(true)));
        numbered.addColumn(new Column("blob", ColumnValue.fromBinary(new byte[] {1, 2})));
        AppliedOnceWrites.put(bed.sync(), numbered);
        deleteName("a");

        List<Row> rows = collect(result, 3);
        Map<String, String> named = new LinkedHashMap<>();
        named.put("v", "1");
        named.put("name", "x");
        Map<String, String> deleted = new LinkedHashMap<>();
        deleted.put("name", null); // a column the change deletes
        assertThat(rows.stream().filter(r -> r.getField(0).equals(table)))
                .extracting(r -> Arrays.asList(r.getField(1), r.getField(2), r.getField(3)))
                .containsExactly(
                        Arrays.asList("a", null, named), Arrays.asList("a", null, deleted));
        assertThat(rows.stream().filter(r -> r.getField(0).equals(other)))
                .extracting(r -> Arrays.asList(r.getField(1), r.getField(2), r.getField(3)))
                .containsExactly(
                        Arrays.asList(
                                null, 5L, Map.of("price", "2.5", "ok", "true", "blob", "AQI=")));
    }

    @Test
    void anUpsertQueryMergesPartialUpdatesIntoTheValuesMap() throws Exception {
        tEnv.executeSql(
                ddlOf(
                        "loose",
                        "id STRING, _values MAP<STRING, STRING>, PRIMARY KEY (id) NOT ENFORCED",
                        ""));
        TableResult result = query("SELECT id, _values FROM loose");

        put("a", 1, "x");
        put("b", 2, "y");
        updateV("a", 10); // partial: name untouched, stays 'x'
        delete("b");
        put("c", 3, "z");
        deleteName("c");

        Map<String, Object> state = new TreeMap<>();
        Map<String, Object> expected = new TreeMap<>();
        expected.put("a", Map.of("v", "10", "name", "x"));
        expected.put("c", Map.of("v", "3"));
        readUntil(
                result,
                row -> {
                    if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
                        state.put((String) row.getField(0), row.getField(1));
                    } else {
                        state.remove((String) row.getField(0));
                    }
                    return state.equals(expected);
                },
                () -> "state " + state);
        assertThat(state).isEqualTo(expected);
    }

    @Test
    void aValuesFieldOfAnotherTypeFailsAtPlanningNamingTheType() {
        tEnv.executeSql(
                ddlOf("wrong", "id STRING, _values STRING", ", 'changelog.mode' = 'insert-only'"));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM wrong"))
                .rootCause()
                .hasMessageContaining("Field '_values' has type")
                .hasMessageContaining("MAP<STRING, STRING>");
    }

    @Test
    void severalTablesInUpsertModeFailAtPlanningNamingInsertOnly() {
        String other = bed.newTable("sql_other");
        tEnv.executeSql(severalTables(ddl("keyed", "PRIMARY KEY (id) NOT ENFORCED", ""), other));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM keyed"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining("reads several Tablestore tables")
                .hasMessageContaining("rows of two tables with the same key")
                .hasMessageContaining("'changelog.mode' = 'insert-only'");
    }

    /** {@code ddl} reading this test's table and {@code other} in one source table. */
    private String severalTables(String ddl, String other) {
        return ddl.replace(
                "'table.name' = '" + table + "'", "'table.name' = '" + table + "," + other + "'");
    }

    @Test
    void upsertModeWithoutAPrimaryKeyFailsAtPlanningWithTheFix() {
        tEnv.executeSql(ddl("nopk", "", ""));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM nopk"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining("needs the table's primary key")
                .hasMessageContaining("PRIMARY KEY (<key columns>) NOT ENFORCED")
                .hasMessageContaining("'changelog.mode' = 'insert-only'");
    }

    @Test
    void badOptionsFailAtPlanningWithTheFix() {
        tEnv.executeSql(
                ddl("bad_mode", "PRIMARY KEY (id) NOT ENFORCED", ", 'changelog.mode' = 'append'"));
        tEnv.executeSql(
                ddl("bad_start", "PRIMARY KEY (id) NOT ENFORCED", ", 'tunnel.start' = 'soon'"));
        tEnv.executeSql(ddl("bad_key", "PRIMARY KEY (id) NOT ENFORCED", ", 'tunnel.nmae' = 'x'"));
        tEnv.executeSql(
                ddl(
                        "bad_stop",
                        "PRIMARY KEY (id) NOT ENFORCED",
                        ", 'scan.bounded.stop-at' = 'tonight'"));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_mode"))
                .rootCause()
                .hasMessage(
                        "Option 'changelog.mode' has invalid value 'append': use upsert (default),"
                                + " insert-only or all");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_start"))
                .rootCause()
                .hasMessageContaining("Option 'tunnel.start' has invalid value 'soon'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_key"))
                .rootCause()
                .hasMessageContaining("Unsupported options")
                .hasMessageContaining("tunnel.nmae");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_stop"))
                .rootCause()
                .hasMessageContaining("Option 'scan.bounded.stop-at' has invalid value 'tonight'");
    }

    /** The core words these; Spark's TablestoreSourceOptionsTest asserts the same lines. */
    @Test
    void aBadSharedValueReadsAsInSpark() {
        tEnv.executeSql(
                ddl(
                        "bad_shared",
                        "PRIMARY KEY (id) NOT ENFORCED",
                        ", 'tunnel.create' = 'always', 'tunnel.start' = 'yesterday'"
                                + ", 'skip.invalid.data' = 'yes'"));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_shared"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageStartingWith("Invalid options for table '")
                .hasMessageContaining(
                        "\n  - Option 'tunnel.create' has invalid value 'always': use none"
                                + " (default), stream, base or base-and-stream\n"
                                + "  - Option 'tunnel.start' has invalid value 'yesterday': use"
                                + " latest (default), earliest or an ISO-8601 instant such as"
                                + " 2024-05-01T00:00:00Z\n"
                                + "  - Option 'skip.invalid.data' has invalid value 'yes': use true"
                                + " or false (default)\n"
                                + "See docs/flink.md for every option.");
    }

    @Test
    void aTableReadsWithTheRamRoleOfTheInstanceMetadataService() throws Exception {
        try (InstanceMetadataStub metadata =
                InstanceMetadataStub.start(bed.emulator(), "sql-reader", Duration.ofHours(1))) {
            tEnv.executeSql(
                    ddl("by_role", "PRIMARY KEY (id) NOT ENFORCED", "")
                            .replace(
                                    "'access.key.id' = '" + bed.emulator().accessKeyId() + "'",
                                    "'credentials.provider' = 'ecs-ram-role'")
                            .replace(
                                    "'access.key.secret' = '"
                                            + bed.emulator().accessKeySecret()
                                            + "'",
                                    "'credentials.ecs.metadata.endpoint' = '"
                                            + metadata.endpoint()
                                            + "'"));
            String plan =
                    tEnv.explainSql("SELECT * FROM by_role", ExplainDetail.JSON_EXECUTION_PLAN);
            TableResult result = query("SELECT id, v, name FROM by_role");
            put("a", 1, "x");

            Map<String, List<Object>> expected = new TreeMap<>();
            expected.put("a", Arrays.asList("a", 1L, "x"));
            assertThat(materializeUntil(result, expected)).isEqualTo(expected);
            assertThat(bed.emulator().acceptedRequestsSignedBy(metadata.current().accessKeyId()))
                    .isPositive();
            assertThat(plan)
                    .doesNotContain(metadata.current().accessKeySecret())
                    .doesNotContain(metadata.current().securityToken());
        }
    }

    @Test
    void aBadCredentialsProviderFailsAtPlanningWithTheFix() {
        tEnv.executeSql(
                ddl("bad_provider", "PRIMARY KEY (id) NOT ENFORCED", "")
                        .replace(
                                "'access.key.id' = '" + bed.emulator().accessKeyId() + "'",
                                "'credentials.provider' = 'ecs'"));

        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_provider"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining(
                        "Option 'credentials.provider' has invalid value 'ecs': use static, env,"
                                + " ecs-ram-role or the fully qualified name of a class")
                .hasMessageNotContaining(bed.emulator().accessKeySecret());
    }

    @Test
    void theSecretNeverAppearsInThePlan() {
        tEnv.executeSql(ddl("src", "PRIMARY KEY (id) NOT ENFORCED", ""));

        String plan = tEnv.explainSql("SELECT * FROM src", ExplainDetail.JSON_EXECUTION_PLAN);

        assertThat(plan).contains("TablestoreCdc").doesNotContain(bed.emulator().accessKeySecret());
    }

    // ---- harness ----

    private String ddl(String name, String extraColumns, String extraOptions) {
        return ddlOf(
                name,
                "id STRING, v BIGINT, name STRING"
                        + (extraColumns.isEmpty() ? "" : ", " + extraColumns),
                extraOptions);
    }

    /**
     * A source table of {@code columns} reading this test's table; a {@code 'table.name'} in {@code
     * extraOptions} replaces it.
     */
    private String ddlOf(String name, String columns, String extraOptions) {
        String tableName =
                extraOptions.contains("'table.name'") ? "" : ", 'table.name' = '" + table + "'";
        return "CREATE TABLE "
                + name
                + " ("
                + columns
                + ") WITH ('connector' = 'tablestore-cdc'"
                + ", 'endpoint' = '"
                + bed.emulator().endpoint()
                + "'"
                + ", 'instance.name' = '"
                + bed.emulator().instanceName()
                + "'"
                + ", 'access.key.id' = '"
                + bed.emulator().accessKeyId()
                + "'"
                + ", 'access.key.secret' = '"
                + bed.emulator().accessKeySecret()
                + "'"
                + tableName
                + ", 'tunnel.name' = '"
                + tunnel
                + "'"
                + ", 'discovery.interval' = '200ms', 'heartbeat.interval' = '5s'"
                + extraOptions
                + ")";
    }

    /** Applies the changelog to a keyed map until it equals {@code expected} (or times out). */
    private static Map<String, List<Object>> materializeUntil(
            TableResult result, Map<String, List<Object>> expected) throws Exception {
        Map<String, List<Object>> state = new TreeMap<>();
        List<Row> seen = new ArrayList<>();
        readUntil(
                result,
                row -> {
                    seen.add(row);
                    return apply(state, row) && state.equals(expected);
                },
                () -> "state " + state + " from changelog " + seen);
        return state;
    }

    /** Applies one changelog row to a keyed state of (id, v, name); always true. */
    private static boolean apply(Map<String, List<Object>> state, Row row) {
        String key = (String) row.getField(0);
        if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
            state.put(key, Arrays.asList(row.getField(0), row.getField(1), row.getField(2)));
        } else {
            state.remove(key);
        }
        return true;
    }

    private static List<Row> collect(TableResult result, int count) throws Exception {
        List<Row> out = new ArrayList<>();
        readUntil(result, row -> out.add(row) && out.size() >= count, () -> "rows " + out);
        return out;
    }

    /**
     * Feeds result rows to {@code done} until it returns true; fails after the timeout (the
     * iterator blocks while the unbounded query has nothing new, so it is read on its own thread).
     */
    private static void readUntil(
            TableResult result,
            java.util.function.Predicate<Row> done,
            java.util.function.Supplier<String> progress)
            throws Exception {
        java.util.concurrent.ExecutorService reader =
                java.util.concurrent.Executors.newSingleThreadExecutor();
        try (CloseableIterator<Row> rows = result.collect()) {
            java.util.concurrent.Future<?> reading =
                    reader.submit(
                            () -> {
                                while (rows.hasNext()) {
                                    if (done.test(rows.next())) {
                                        return;
                                    }
                                }
                            });
            try {
                reading.get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("Timed out after " + TIMEOUT + "; " + progress.get());
            }
        } finally {
            reader.shutdownNow();
        }
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

    private void deleteName(String id) {
        bed.deleteColumn(table, id, "name");
    }

    private void delete(String id) {
        bed.delete(table, id);
    }
}
