package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code SELECT} from {@code 'connector' = 'tablestore'}: a bounded scan, on the emulator. */
class TablestoreScanITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** 20 first-column values of 50 rows each. */
    private static final int GROUPS = 20;

    private static final int PER_GROUP = 50;

    /** Small enough that the 1000 rows (about 40 KB) make several splits. */
    private static final String SPLIT_SIZE = "4 kb";

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
        table = "scan" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("g", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        List<RowPutChange> rows = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            for (int n = 0; n < PER_GROUP; n++) {
                RowPutChange put = new RowPutChange(table, key(group(g), n));
                put.addColumn(new Column("name", ColumnValue.fromString(name(g, n))));
                put.addColumn(new Column("v", ColumnValue.fromLong(g * 1000L + n)));
                rows.add(put);
            }
        }
        write(rows);
    }

    static String group(int g) {
        return String.format("g%02d", g);
    }

    static String name(int g, int n) {
        return "name-" + g + "-" + n;
    }

    private static PrimaryKey key(String g, long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("g", PrimaryKeyValue.fromString(g))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .build();
    }

    private static void write(List<RowPutChange> rows) {
        for (int from = 0; from < rows.size(); from += 200) {
            BatchWriteRowRequest request = new BatchWriteRowRequest();
            rows.subList(from, Math.min(from + 200, rows.size())).forEach(request::addRowChange);
            BatchWriteRowResponse response = bed.sync().batchWriteRow(request);
            assertThat(response.isAllSucceed()).as("batch write").isTrue();
        }
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

    private void createTable(String extraOptions) {
        tEnv.executeSql(
                "CREATE TABLE t (g STRING, n BIGINT, name STRING, v BIGINT,"
                        + " PRIMARY KEY (g, n) NOT ENFORCED) WITH ("
                        + connection()
                        + ", 'scan.split-size' = '"
                        + SPLIT_SIZE
                        + "'"
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

    /** The premise of the split tests: the table has several splits at this size. */
    private int splitCount() {
        try (SdkTableService service =
                SdkTableService.connect(
                        new io.tablestorecdc.checkpoint.model.TablestoreEndpoint(
                                bed.emulator().endpoint(),
                                bed.emulator().instanceName(),
                                io.tablestorecdc.checkpoint.model.TablestoreCredentials.of(
                                        bed.emulator().accessKeyId(),
                                        bed.emulator().accessKeySecret())),
                        table)) {
            return new TableReader(service, 0).scanRanges(4096, KeyBounds.all()).size();
        }
    }

    @Test
    void aKeyRangeAndAProjectionReadExactlyTheMatchingRows() throws Exception {
        createTable("");

        List<String> rows = rows("SELECT n, name FROM t WHERE g = 'g03' AND n BETWEEN 10 AND 20");

        List<String> expected = new ArrayList<>();
        for (int n = 10; n <= 20; n++) {
            expected.add("+I[" + n + ", " + name(3, n) + "]");
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aRangeOnTheFirstKeyColumnSpanningSplitsReadsEachRowOnce() throws Exception {
        createTable("");
        assertThat(splitCount()).as("splits of the whole table").isGreaterThan(3);

        List<String> rows = rows("SELECT g, n, v FROM t WHERE g >= 'g05' AND g < 'g08'");

        List<String> expected = new ArrayList<>();
        for (int g = 5; g < 8; g++) {
            for (int n = 0; n < PER_GROUP; n++) {
                expected.add("+I[" + group(g) + ", " + n + ", " + (g * 1000L + n) + "]");
            }
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aWholeTableReadWithParallelismFourReadsEachRowOnce() throws Exception {
        createTable(", 'scan.parallelism' = '4'");
        assertThat(splitCount()).as("splits of the whole table").isGreaterThan(4);

        List<String> rows = rows("SELECT * FROM t");

        List<String> expected = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            for (int n = 0; n < PER_GROUP; n++) {
                expected.add(
                        "+I["
                                + group(g)
                                + ", "
                                + n
                                + ", "
                                + name(g, n)
                                + ", "
                                + (g * 1000L + n)
                                + "]");
            }
        }
        assertThat(rows).hasSize(GROUPS * PER_GROUP).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(scanLine("SELECT * FROM t")).doesNotContain("filter=");
    }

    @Test
    void thePlanShowsTheFiltersThatBoundTheKeyRangeAndTheColumnsRead() {
        createTable("");

        String scan = scanLine("SELECT name FROM t WHERE g = 'g03' AND n > 5 AND n <= 9 AND v > 0");

        assertThat(scan).contains("filter=[").contains(">(n, 5)").contains("<=(n, 9)");
        assertThat(scan).as("not a key filter").doesNotContain(">(v, 0)");
        assertThat(scanLine("SELECT name FROM t WHERE g = 'g03'"))
                .as("g stays for Flink's own filter")
                .contains("project=[g, name]");
    }

    /** The plan's line that reads the table. */
    private String scanLine(String sql) {
        String plan = tEnv.explainSql(sql);
        assertThat(plan).doesNotContain(bed.emulator().accessKeySecret());
        return plan.lines()
                .filter(l -> l.contains("TableSourceScan"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no TableSourceScan in\n" + plan));
    }

    @Test
    void aBatchJobReadsTheTableAndEnds() throws Exception {
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql(
                "CREATE TABLE t (g STRING, n BIGINT, name STRING, v BIGINT,"
                        + " PRIMARY KEY (g, n) NOT ENFORCED) WITH ("
                        + connection()
                        + ", 'scan.split-size' = '"
                        + SPLIT_SIZE
                        + "')");

        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it =
                batch.executeSql("SELECT g, COUNT(*), SUM(v) FROM t WHERE g < 'g02' GROUP BY g")
                        .collect()) {
            it.forEachRemaining(r -> rows.add(r.toString()));
        }

        assertThat(rows).containsExactlyInAnyOrder("+I[g00, 50, 1225]", "+I[g01, 50, 51225]");
    }

    @Test
    void filtersThatCannotBoundTheKeyAreStillApplied() throws Exception {
        createTable("");

        List<String> rows =
                rows("SELECT g, n FROM t WHERE (g = 'g01' AND n < 2) OR v = 19049 OR n > 48");

        List<String> expected = new ArrayList<>(List.of("+I[g01, 0]", "+I[g01, 1]"));
        for (int g = 0; g < GROUPS; g++) {
            expected.add("+I[" + group(g) + ", 49]");
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void rowsWithoutTheProjectedAttributesAreReadToo() throws Exception {
        RowPutChange bare = new RowPutChange(table, key("h", 1));
        bare.addColumn(new Column("other", ColumnValue.fromLong(1)));
        write(List.of(bare, new RowPutChange(table, key("h", 2))));
        createTable("");

        List<String> rows = rows("SELECT n, name FROM t WHERE g = 'h'");

        assertThat(rows).containsExactlyInAnyOrder("+I[1, null]", "+I[2, null]");
    }

    @Test
    void aReadTheServiceRefusesFailsTheJobNamingTheSplitTableAndError() {
        createTable("");
        bed.emulator()
                .faults()
                .add(Faults.Rule.error("GetRange", "OTSAuthFailed", 403, Faults.UNLIMITED));
        try {
            assertThatThrownBy(() -> rows("SELECT * FROM t"))
                    .hasStackTraceContaining("Reading split range-")
                    .hasStackTraceContaining("of table '" + table + "' failed")
                    .hasStackTraceContaining("OTSAuthFailed");
        } finally {
            bed.emulator().faults().clear();
        }
    }

    @Test
    void aSplitSizeThatIsNotPositiveIsRefusedNamingTheOption() {
        tEnv.executeSql(
                "CREATE TABLE bad (g STRING, n BIGINT, PRIMARY KEY (g, n) NOT ENFORCED) WITH ("
                        + connection()
                        + ", 'scan.split-size' = '0 b')");

        assertThatThrownBy(() -> rows("SELECT * FROM bad"))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("Option 'scan.split-size' must be positive")
                .hasStackTraceContaining("'64 mb'");
    }
}
