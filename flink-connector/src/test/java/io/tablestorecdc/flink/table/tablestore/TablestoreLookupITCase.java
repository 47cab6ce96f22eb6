package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.runtime.functions.table.lookup.CachingLookupFunction;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code 'connector' = 'tablestore'} as a dimension table in lookup joins, on the emulator. */
class TablestoreLookupITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = new MiniClusterExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();

    private static EmulatorBed bed;
    private StreamTableEnvironment tEnv;
    private String table;

    @BeforeAll
    static void startEmulator() {
        bed = EmulatorBed.start();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @BeforeEach
    void setUp() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        tEnv = StreamTableEnvironment.create(env);
        table = "dim" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("g", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        put("a", 1, "apple");
        put("a", 2, "apricot");
        put("b", 1, "banana");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW probe AS SELECT g, n, PROCTIME() AS proc FROM (VALUES"
                        + " ('a', CAST(1 AS BIGINT)), ('b', CAST(1 AS BIGINT)),"
                        + " ('a', CAST(2 AS BIGINT)), ('zz', CAST(9 AS BIGINT))) AS t(g, n)");
    }

    private void put(String g, long n, String name) {
        RowPutChange put =
                new RowPutChange(
                        table,
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("g", PrimaryKeyValue.fromString(g))
                                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                                .build());
        put.addColumn(new Column("name", ColumnValue.fromString(name)));
        bed.sync().putRow(new PutRowRequest(put));
    }

    private String connection() {
        return "'connector' = 'tablestore', 'endpoint' = '"
                + bed.emulator().endpoint()
                + "', 'instance.name' = '"
                + bed.emulator().instanceName()
                + "', 'access.key.id' = '"
                + bed.emulator().accessKeyId()
                + "', 'access.key.secret' = '"
                + bed.emulator().accessKeySecret()
                + "', 'table.name' = '"
                + table
                + "'";
    }

    private void createDim(String primaryKey, String extraOptions) {
        tEnv.executeSql(
                "CREATE TABLE dim (g STRING, n BIGINT, name STRING"
                        + primaryKey
                        + ") WITH ("
                        + connection()
                        + extraOptions
                        + ")");
    }

    private List<String> rows(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        return out;
    }

    private static final String FULL_KEY_JOIN =
            "SELECT p.g, p.n, d.name FROM probe AS p LEFT JOIN dim FOR SYSTEM_TIME AS OF p.proc"
                    + " AS d ON p.g = d.g AND p.n = d.n";

    @ParameterizedTest(name = "lookup.async = {0}")
    @ValueSource(booleans = {true, false})
    void aFullKeyJoinFindsEachRowAndNullForAMissingKey(boolean async) throws Exception {
        createDim(", PRIMARY KEY (g, n) NOT ENFORCED", ", 'lookup.async' = '" + async + "'");

        assertThat(rows(FULL_KEY_JOIN))
                .containsExactlyInAnyOrder(
                        "+I[a, 1, apple]",
                        "+I[b, 1, banana]",
                        "+I[a, 2, apricot]",
                        "+I[zz, 9, null]");
    }

    @Test
    void aPartialCacheWithMissingKeysGivesTheSameAnswer() throws Exception {
        createDim(
                ", PRIMARY KEY (g, n) NOT ENFORCED",
                ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100',"
                        + " 'lookup.partial-cache.expire-after-write' = '1 min',"
                        + " 'lookup.partial-cache.cache-missing-key' = 'true'");

        assertThat(rows(FULL_KEY_JOIN))
                .containsExactlyInAnyOrder(
                        "+I[a, 1, apple]",
                        "+I[b, 1, banana]",
                        "+I[a, 2, apricot]",
                        "+I[zz, 9, null]");
    }

    @ParameterizedTest(name = "lookup.async = {0}")
    @ValueSource(booleans = {true, false})
    void aJoinOnTheFirstKeyColumnReturnsEveryMatchingRow(boolean async) throws Exception {
        createDim(", PRIMARY KEY (g, n) NOT ENFORCED", ", 'lookup.async' = '" + async + "'");

        List<String> rows =
                rows(
                        "SELECT p.g, p.n, d.n, d.name FROM probe AS p JOIN dim FOR SYSTEM_TIME AS"
                                + " OF p.proc AS d ON p.g = d.g");

        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "+I[a, 1, 1, apple]",
                        "+I[a, 1, 2, apricot]",
                        "+I[b, 1, 1, banana]",
                        "+I[a, 2, 1, apple]",
                        "+I[a, 2, 2, apricot]");
    }

    @Test
    void aJoinOnALaterKeyColumnAloneIsRefused() {
        createDim(", PRIMARY KEY (g, n) NOT ENFORCED", "");

        assertThatThrownBy(
                        () ->
                                rows(
                                        "SELECT p.g, d.name FROM probe AS p JOIN dim FOR"
                                                + " SYSTEM_TIME AS OF p.proc AS d ON p.n = d.n"))
                .hasStackTraceContaining("must name its whole primary key [g, n]")
                .hasStackTraceContaining("joins on [n]");
    }

    @Test
    void aDdlPrimaryKeyOtherThanTheTablesIsRefusedNamingBoth() {
        createDim(", PRIMARY KEY (g) NOT ENFORCED", "");

        assertThatThrownBy(() -> rows(FULL_KEY_JOIN))
                .hasStackTraceContaining("is [g] but Tablestore table '" + table + "'")
                .hasStackTraceContaining("has primary key [g, n]")
                .hasStackTraceContaining("declare PRIMARY KEY (g, n) NOT ENFORCED");
    }

    @Test
    void aLookupCacheTypeOtherThanNoneOrPartialIsRefused() {
        createDim(", PRIMARY KEY (g, n) NOT ENFORCED", ", 'lookup.cache' = 'FULL'");

        assertThatThrownBy(() -> rows(FULL_KEY_JOIN))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("use NONE or PARTIAL");
    }

    // The cache's behaviour over time, through Flink's own caching wrapper around our function.

    private TableLookup fullKeyLookup() {
        TableConnection settings =
                TableConnection.parse(
                        Map.of(
                                "endpoint", bed.emulator().endpoint(),
                                "instance.name", bed.emulator().instanceName(),
                                "access.key.id", bed.emulator().accessKeyId(),
                                "access.key.secret", bed.emulator().accessKeySecret(),
                                "table.name", table),
                        k -> k,
                        "test",
                        "docs");
        RowType rowType =
                RowType.of(
                        new org.apache.flink.table.types.logical.LogicalType[] {
                            new VarCharType(VarCharType.MAX_LENGTH),
                            new BigIntType(),
                            new VarCharType(VarCharType.MAX_LENGTH)
                        },
                        new String[] {"g", "n", "name"});
        return new TableLookup(settings, rowType, List.of("g", "n"), new int[] {0, 1}, 2);
    }

    private static RowData key(String g, long n) {
        return GenericRowData.of(StringData.fromString(g), n);
    }

    private static List<String> names(Collection<RowData> rows) {
        return rows.stream().map(r -> r.getString(2).toString()).toList();
    }

    @Test
    void withoutACacheAChangedRowIsSeenAtOnce() throws Exception {
        TablestoreLookupFunction function = new TablestoreLookupFunction(fullKeyLookup());
        function.open(new FunctionContext(null));
        try {
            assertThat(names(function.lookup(key("a", 1)))).containsExactly("apple");
            put("a", 1, "avocado");
            assertThat(names(function.lookup(key("a", 1)))).containsExactly("avocado");
        } finally {
            function.close();
        }
    }

    @Test
    void withACacheAChangedRowIsSeenAfterExpiry() throws Exception {
        CachingLookupFunction cached =
                new CachingLookupFunction(
                        DefaultLookupCache.newBuilder()
                                .maximumSize(100)
                                .expireAfterWrite(Duration.ofMillis(300))
                                .cacheMissingKey(true)
                                .build(),
                        new TablestoreLookupFunction(fullKeyLookup()));
        cached.open(new FunctionContext(null));
        try {
            assertThat(names(cached.lookup(key("a", 1)))).containsExactly("apple");
            assertThat(cached.lookup(key("nope", 1))).isEmpty();
            put("a", 1, "avocado");
            put("nope", 1, "now here");

            assertThat(names(cached.lookup(key("a", 1))))
                    .as("served from the cache before expiry")
                    .containsExactly("apple");
            assertThat(cached.lookup(key("nope", 1))).as("a cached missing key").isEmpty();
            awaitUntil(() -> names(cached.lookup(key("a", 1))).equals(List.of("avocado")));
            awaitUntil(() -> names(cached.lookup(key("nope", 1))).equals(List.of("now here")));
        } finally {
            cached.close();
        }
    }

    @Test
    void asyncLookupsBatchConcurrentKeys() throws Exception {
        TablestoreAsyncLookupFunction function = new TablestoreAsyncLookupFunction(fullKeyLookup());
        function.open(new FunctionContext(null));
        try {
            List<java.util.concurrent.CompletableFuture<Collection<RowData>>> futures =
                    new ArrayList<>();
            for (int i = 0; i < 250; i++) {
                futures.add(function.asyncLookup(key(i % 2 == 0 ? "a" : "zz", 1 + (i % 4) / 2)));
            }
            for (int i = 0; i < futures.size(); i++) {
                Collection<RowData> rows =
                        futures.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
                if (i % 2 == 1) {
                    assertThat(rows).isEmpty();
                } else {
                    assertThat(names(rows)).containsExactly(i % 4 == 0 ? "apple" : "apricot");
                }
            }
        } finally {
            function.close();
        }
    }

    private static void awaitUntil(ThrowingCondition condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.onSpinWait();
        }
    }

    @FunctionalInterface
    private interface ThrowingCondition {
        boolean holds() throws Exception;
    }
}
