package io.tablestorecdc.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
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
import io.tablestorecdc.spark.CdcTestBed;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.execution.ExtendedMode$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code spark.read.format("tablestore")} on the emulator through the real SDK: every row read
 * exactly once across many splits, column pruning, primary-key range push-down with exact results,
 * the inferred and a user schema, errors naming the fix, and a write-then-read round trip.
 */
class TablestoreReadITCase {

    private static final int REGIONS = 10;
    private static final int PER_REGION = 30;

    /** Key (region STRING, n INTEGER); name on even n only, blob on n % 5 == 0 only. */
    private static final StructType SCHEMA =
            new StructType()
                    .add("region", DataTypes.StringType)
                    .add("n", DataTypes.LongType)
                    .add("name", DataTypes.StringType)
                    .add("qty", DataTypes.LongType)
                    .add("price", DataTypes.DoubleType)
                    .add("ok", DataTypes.BooleanType)
                    .add("blob", DataTypes.BinaryType);

    private static final AtomicInteger TABLES = new AtomicInteger();

    static CdcTestBed bed;
    static String table;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
        table = createTable();
        List<RowPutChange> puts = new ArrayList<>();
        for (int r = 0; r < REGIONS; r++) {
            for (int n = 0; n < PER_REGION; n++) {
                puts.add(put(table, region(r), n));
            }
        }
        write(puts);
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void aSmallSplitSizeReadsEveryRowExactlyOnceAcrossManyPartitions() {
        Dataset<Row> df = read(Map.of("read.split.size", "1k")).schema(SCHEMA).load();

        assertThat(df.javaRDD().getNumPartitions()).isGreaterThanOrEqualTo(5);
        assertThat(texts(df.collectAsList())).isEqualTo(texts(expected(r -> true)));
    }

    @Test
    void theScanNodeCountsTheRowsAndRequestsItsTasksRead() {
        Dataset<Row> df =
                read(Map.of("read.split.size", "1k")).schema(SCHEMA).load().where("qty >= 0");
        int partitions = df.javaRDD().getNumPartitions();

        assertThat(df.collectAsList()).hasSize(REGIONS * PER_REGION);

        SparkPlan scan = scanNode(df);
        assertThat(scan.metrics().get("rowsRead").get().value()).isEqualTo(REGIONS * PER_REGION);
        assertThat(scan.metrics().get("getRangeRequests").get().value())
                .isGreaterThanOrEqualTo(partitions);
    }

    @Test
    void aLimitRightAboveTheScanIsPushedAndEachTaskReadsNoMoreRows() {
        Dataset<Row> all = read(Map.of("read.split.size", "1k")).schema(SCHEMA).load();
        int partitions = all.javaRDD().getNumPartitions();
        Dataset<Row> df = all.limit(7);
        assertThat(explain(df)).contains("PushedLimit: 7");

        assertThat(df.collectAsList()).hasSize(7);
        long read = scanNode(df).metrics().get("rowsRead").get().value();
        assertThat(read).isBetween(7L, 7L * partitions).isLessThan(REGIONS * PER_REGION);

        Dataset<Row> filtered =
                read(Map.of("read.split.size", "1k"))
                        .schema(SCHEMA)
                        .load()
                        .where("qty > 900")
                        .limit(3);
        assertThat(explain(filtered)).doesNotContain("PushedLimit");
        assertThat(filtered.collectAsList())
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.getLong(3)).isGreaterThan(900));
    }

    @Test
    void theDefaultSplitSizeReadsTheSmallTableInOnePartition() {
        Dataset<Row> df = read(Map.of()).schema(SCHEMA).load();

        assertThat(df.javaRDD().getNumPartitions()).isEqualTo(1);
        assertThat(df.count()).isEqualTo(REGIONS * PER_REGION);
    }

    @Test
    void withoutASchemaTheKeyColumnsAndTheValuesMapAreRead() {
        Dataset<Row> df = read(Map.of()).load();

        assertThat(df.schema().simpleString())
                .isEqualTo("struct<region:string,n:bigint,_values:map<string,string>>");
        Row row = df.where("region = 'r03' AND n = 10").collectAsList().get(0);
        assertThat(row.<String, String>getJavaMap(2))
                .containsOnly(
                        Map.entry("name", "name-r03-10"),
                        Map.entry("qty", "310"),
                        Map.entry("price", "15.5"),
                        Map.entry("ok", "true"),
                        Map.entry("blob", "AwoBAg=="));
        assertThat(df.count()).isEqualTo(REGIONS * PER_REGION);
    }

    @Test
    void sampledRowsGiveTypedAttributeColumnsByName() {
        Dataset<Row> df = read(Map.of("read.schema.sample.rows", "50")).load();

        assertThat(df.schema().simpleString())
                .isEqualTo(
                        "struct<region:string,n:bigint,blob:binary,name:string,ok:boolean,"
                                + "price:double,qty:bigint>");
        Dataset<Row> inSchemaOrder = df.select("region", "n", "name", "qty", "price", "ok", "blob");
        assertThat(texts(inSchemaOrder.collectAsList())).isEqualTo(texts(expected(r -> true)));
    }

    @Test
    void sampledRowsWithAColumnOfTwoTypesFailNamingTheColumnAndTheFix() {
        String mixed = bed.newTable();
        putOne(mixed, "a", new Column("v", ColumnValue.fromString("text")));
        putOne(mixed, "b", new Column("v", ColumnValue.fromLong(2)));
        Map<String, String> options = new HashMap<>(connection(mixed));
        options.put("read.schema.sample.rows", "10");

        assertThatThrownBy(() -> bed.spark.read().format("tablestore").options(options).load())
                .hasMessageContaining("Inferring the schema of table '" + mixed + "'")
                .hasMessageContaining("v holds [STRING, INTEGER]")
                .hasMessageContaining("give .schema(...), or leave read.schema.sample.rows unset");
    }

    @Test
    void onlyTheSelectedColumnsAreReadAndRowsWithoutThemStillCount() {
        Dataset<Row> df = read(Map.of("read.split.size", "1k")).schema(SCHEMA).load();

        Dataset<Row> names = df.select("name");
        assertThat(explain(names)).contains("columns: [name]");
        // name is on every other row only: the rows without it must still be read, as null.
        List<Row> rows = names.collectAsList();
        assertThat(rows).hasSize(REGIONS * PER_REGION);
        assertThat(rows.stream().filter(r -> r.isNullAt(0)).count())
                .isEqualTo(REGIONS * PER_REGION / 2);
        assertThat(df.select("blob").where("blob IS NOT NULL").count())
                .isEqualTo(REGIONS * PER_REGION / 5);
        assertThat(df.count()).isEqualTo(REGIONS * PER_REGION);
    }

    @Test
    void filtersOnTheLeadingKeyColumnsBoundTheRangeAndResultsAreExact() {
        Dataset<Row> df = read(Map.of("read.split.size", "1k")).schema(SCHEMA).load();
        int all = df.javaRDD().getNumPartitions();

        Dataset<Row> range = df.where("region = 'r03' AND n >= 10 AND n < 20 AND qty > 314");
        String plan = explain(range);
        assertThat(plan).contains("keys: region = 'r03' AND n >= 10 AND n < 20");
        assertThat(plan).contains("PushedFilters: [EqualTo(region,r03), GreaterThanOrEqual(n,10)");
        assertThat(plan).doesNotContain("GreaterThan(qty");
        assertThat(plan).doesNotContain(CdcTestBed.SECRET);
        assertThat(range.queryExecution().explainString(ExtendedMode$.MODULE$))
                .doesNotContain(CdcTestBed.SECRET);
        assertThat(range.javaRDD().getNumPartitions()).isLessThan(all);
        assertThat(texts(range.collectAsList()))
                .isEqualTo(
                        texts(
                                expected(
                                        r ->
                                                r.getString(0).equals("r03")
                                                        && r.getLong(1) >= 10
                                                        && r.getLong(1) < 20
                                                        && r.getLong(3) > 314)));
    }

    @Test
    void aRangeOnTheFirstKeyColumnIsPushedAndOneOnALaterColumnAloneIsNot() {
        Dataset<Row> df = read(Map.of("read.split.size", "1k")).schema(SCHEMA).load();

        Dataset<Row> first = df.where("region > 'r07' AND region <= 'r08'");
        assertThat(explain(first)).contains("keys: region > 'r07' AND region <= 'r08'");
        assertThat(texts(first.collectAsList()))
                .isEqualTo(texts(expected(r -> r.getString(0).equals("r08"))));

        Dataset<Row> later = df.where("n = 3");
        assertThat(explain(later)).contains("keys: all keys").contains("PushedFilters: []");
        assertThat(later.count()).isEqualTo(REGIONS);

        Dataset<Row> none = df.where("region = 'r03' AND n > 40");
        assertThat(none.count()).isZero();
    }

    @Test
    void aValueThatDoesNotFitItsDeclaredTypeFailsNamingTheColumnAndTheFix() {
        StructType qtyAsText =
                new StructType()
                        .add("region", DataTypes.StringType)
                        .add("n", DataTypes.LongType)
                        .add("qty", DataTypes.StringType);
        Dataset<Row> df = read(Map.of()).schema(qtyAsText).load();

        assertThatThrownBy(df::collectAsList)
                .hasStackTraceContaining("column 'qty' holds INTEGER value 0")
                .hasStackTraceContaining("does not fit its declared type string")
                .hasStackTraceContaining("Declare the column with a type that holds INTEGER");
        // A narrower integer type that holds every value is fine.
        StructType qtyAsInt =
                new StructType()
                        .add("region", DataTypes.StringType)
                        .add("n", DataTypes.LongType)
                        .add("qty", DataTypes.IntegerType);
        assertThat(read(Map.of()).schema(qtyAsInt).load().where("n = 1").count())
                .isEqualTo(REGIONS);
    }

    @Test
    void aSchemaWithoutAKeyColumnOrWithAWrongKeyTypeIsRefusedWithTheFix() {
        StructType noN =
                new StructType().add("region", DataTypes.StringType).add("qty", DataTypes.LongType);
        assertThatThrownBy(() -> read(Map.of()).schema(noN).load().collectAsList())
                .hasMessageContaining("primary-key column 'n' is missing")
                .hasMessageContaining("add it to the schema as n BIGINT");
        StructType nAsText =
                new StructType().add("region", DataTypes.StringType).add("n", DataTypes.StringType);
        assertThatThrownBy(() -> read(Map.of()).schema(nAsText).load().collectAsList())
                .hasMessageContaining("column 'n' is string, but it is a primary-key column")
                .hasMessageContaining("declare it as bigint");
        StructType aDate =
                new StructType()
                        .add("region", DataTypes.StringType)
                        .add("n", DataTypes.LongType)
                        .add("day", DataTypes.DateType);
        assertThatThrownBy(() -> read(Map.of()).schema(aDate).load().collectAsList())
                .hasMessageContaining("column 'day' has type date")
                .hasMessageContaining("use one of [string, bigint");
    }

    @Test
    void anUnknownTableOrABadSplitSizeIsNamedWithTheFix() {
        Map<String, String> missing = new HashMap<>(connection(table));
        missing.put("table.name", "no_such_table");
        assertThatThrownBy(() -> bed.spark.read().format("tablestore").options(missing).load())
                .hasMessageContaining("Could not describe table 'no_such_table'")
                .hasMessageContaining("Check the options table.name");
        assertThatThrownBy(() -> read(Map.of("read.split.size", "lots")).load())
                .hasMessageContaining("Option 'read.split.size' has invalid value 'lots'")
                .hasMessageContaining("64m");
        Map<String, String> noEndpoint = new HashMap<>(connection(table));
        noEndpoint.remove("endpoint");
        assertThatThrownBy(() -> bed.spark.read().format("tablestore").options(noEndpoint).load())
                .hasMessageContaining("Missing required option 'endpoint'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(CdcTestBed.SECRET));
    }

    @Test
    void aFrameWrittenAndReadBackEqualsTheFrame() {
        String target = bed.newTable();
        StructType schema =
                new StructType()
                        .add("id", DataTypes.StringType)
                        .add("qty", DataTypes.LongType)
                        .add("price", DataTypes.DoubleType)
                        .add("ok", DataTypes.BooleanType)
                        .add("blob", DataTypes.BinaryType)
                        .add("name", DataTypes.StringType);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            rows.add(
                    RowFactory.create(
                            String.format("k%04d", i),
                            i % 7 == 0 ? null : (long) i * 1000,
                            i * 0.25,
                            i % 2 == 0,
                            i % 3 == 0 ? null : new byte[] {(byte) i, 0, (byte) -i},
                            "name \u00e9 " + i));
        }
        Dataset<Row> source = bed.spark.createDataFrame(rows, schema);
        source.write().format("tablestore").options(connection(target)).mode("append").save();

        Dataset<Row> back =
                bed.spark
                        .read()
                        .format("tablestore")
                        .options(connection(target))
                        .option("read.split.size", "4k")
                        .schema(schema)
                        .load();

        assertThat(back.javaRDD().getNumPartitions()).isGreaterThan(1);
        assertThat(texts(back.collectAsList())).isEqualTo(texts(source.collectAsList()));
        assertThat(back.schema()).isEqualTo(schema);
    }

    // ---- harness ----

    private static String region(int r) {
        return String.format("r%02d", r);
    }

    /** The rows written, as Spark rows of SCHEMA, filtered. */
    private static List<Row> expected(java.util.function.Predicate<Row> filter) {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < REGIONS; r++) {
            for (int n = 0; n < PER_REGION; n++) {
                Row row =
                        RowFactory.create(
                                region(r),
                                (long) n,
                                n % 2 == 0 ? "name-" + region(r) + "-" + n : null,
                                (long) (r * 100 + n),
                                n + 5.5,
                                n % 3 != 0,
                                n % 5 == 0 ? new byte[] {(byte) r, (byte) n, 1, 2} : null);
                if (filter.test(row)) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static RowPutChange put(String table, String region, int n) {
        RowPutChange put =
                new RowPutChange(
                        table,
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("region", PrimaryKeyValue.fromString(region))
                                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                                .build());
        int r = Integer.parseInt(region.substring(1));
        if (n % 2 == 0) {
            put.addColumn(new Column("name", ColumnValue.fromString("name-" + region + "-" + n)));
        }
        put.addColumn(new Column("qty", ColumnValue.fromLong(r * 100L + n)));
        put.addColumn(new Column("price", ColumnValue.fromDouble(n + 5.5)));
        put.addColumn(new Column("ok", ColumnValue.fromBoolean(n % 3 != 0)));
        if (n % 5 == 0) {
            put.addColumn(
                    new Column(
                            "blob", ColumnValue.fromBinary(new byte[] {(byte) r, (byte) n, 1, 2})));
        }
        return put;
    }

    private static void putOne(String table, String id, Column column) {
        RowPutChange change = new RowPutChange(table, CdcTestBed.key(id));
        change.addColumn(column);
        AppliedOnceWrites.put(bed.sync, change);
    }

    private static String createTable() {
        String name = "read_t" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("region", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    private static void write(List<RowPutChange> puts) {
        for (int from = 0; from < puts.size(); from += 100) {
            BatchWriteRowRequest request = new BatchWriteRowRequest();
            puts.subList(from, Math.min(puts.size(), from + 100)).forEach(request::addRowChange);
            BatchWriteRowResponse response = bed.sync.batchWriteRow(request);
            assertThat(response.isAllSucceed()).isTrue();
        }
    }

    private static org.apache.spark.sql.DataFrameReader read(Map<String, String> options) {
        return bed.spark.read().format("tablestore").options(connection(table)).options(options);
    }

    private static Map<String, String> connection(String table) {
        return Map.of(
                "endpoint", bed.emulator.endpoint(),
                "instance.name", bed.emulator.instanceName(),
                "access.key.id", bed.emulator.accessKeyId(),
                "access.key.secret", CdcTestBed.SECRET,
                "table.name", table);
    }

    private static SparkPlan scanNode(Dataset<Row> df) {
        // Scala's Seq as such: its Java converters differ between Scala 2.12 and 2.13.
        scala.collection.Seq<SparkPlan> leaves = df.queryExecution().executedPlan().collectLeaves();
        assertThat(leaves.size()).as("leaves of %s", leaves).isEqualTo(1);
        return leaves.head();
    }

    private static String explain(Dataset<Row> df) {
        return df.queryExecution()
                .explainString(org.apache.spark.sql.execution.SimpleMode$.MODULE$);
    }

    /** Rows as sorted texts (binary as its bytes): an exact multiset, order aside. */
    private static List<String> texts(List<Row> rows) {
        return rows.stream().map(TablestoreReadITCase::text).sorted().collect(Collectors.toList());
    }

    private static String text(Row row) {
        List<String> cells = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
            Object v = row.get(i);
            cells.add(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v));
        }
        return String.join("|", cells);
    }
}
