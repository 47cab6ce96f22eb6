package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.ComputeSplitsBySizeRequest;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.Split;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.e2e.InstanceConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.spark.sql.SparkSession;

/**
 * Part {@code scan}: the bounded scans' cost against the service's own range read. One table of
 * {@code scanRows} rows (a string key and two attribute columns, as the sink part writes them) is
 * read whole, per round, three ways with two readers each: a raw loop of GetRange requests of 5 000
 * rows over the table's ComputeSplitsBySize splits of {@value #SPLIT_SIZE_TEXT} (two threads taking
 * the splits from one queue), Flink SQL's {@code 'connector' = 'tablestore'} scan at parallelism 2
 * into a {@code blackhole} sink (net runtime, the job's start left out), and Spark's {@code
 * spark.read.format("tablestore")} with a typed schema into the {@code noop} sink ({@code
 * local[2]}). All three ask for the same splits and read every column. Each engine's rate is
 * divided by the raw loop's of the same round (paired ratios), after one warm-up round that is not
 * reported.
 */
final class ScanPart {

    private static final String TABLE = "scan_rows";
    private static final String SPLIT_SIZE_TEXT = "2 MB";
    private static final long SPLIT_BYTES = 2L * 1024 * 1024;
    private static final int PAGE_ROWS = 5000;
    private static final int READERS = 2;
    private static final String PAYLOAD = "x".repeat(48);

    private final ThroughputBenchmark bench;
    private final BenchEmulator emulator;
    private final InstanceConnection connection;

    ScanPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.emulator = bench.emulator();
        this.connection = emulator.connection();
    }

    /** One round's rates, rows per second. */
    record Round(double raw, double flink, double flinkWhole, double spark) {}

    void run() throws Exception {
        int rows = bench.settings().scanRows();
        int runs = Math.max(1, bench.settings().runs());
        int splits = fill(rows);
        say(
                "%nBounded scans against a raw GetRange loop, %d rows in %d splits, %d readers"
                        + " (rows/s):",
                rows, splits, READERS);
        List<Round> rounds = new ArrayList<>();
        for (int round = 0; round <= runs; round++) {
            double raw = raw(rows);
            double[] flink = flink(rows);
            Round r = new Round(raw, flink[1], flink[0], spark(rows));
            say(
                    "  %s %d: raw %.0f, flink %.0f (whole job %.0f), spark %.0f",
                    round == 0 ? "warm-up" : "round",
                    round,
                    r.raw(),
                    r.flink(),
                    r.flinkWhole(),
                    r.spark());
            if (round > 0) {
                rounds.add(r);
            }
        }
        double[] flinkRatio = ratios(rounds, Round::flink);
        double[] sparkRatio = ratios(rounds, Round::spark);
        say(
                "  over raw, paired by round: flink %s; spark %s",
                PairedRatios.describe(flinkRatio), PairedRatios.describe(sparkRatio));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("rows", rows);
        json.put("splits", splits);
        json.put("rounds", rounds.stream().map(ThroughputBenchmark::record).toList());
        json.put("flinkOverRaw", ConsumerFigures.median(flinkRatio));
        json.put("sparkOverRaw", ConsumerFigures.median(sparkRatio));
        bench.report("scan", json);
    }

    /** Creates and fills the table; answers how many splits the scans read. */
    private int fill(int rows) {
        SyncClient sync = emulator.newSyncClient();
        try {
            TableMeta meta = new TableMeta(TABLE);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            for (int first = 0; first < rows; first += 200) {
                BatchWriteRowRequest request = new BatchWriteRowRequest();
                for (int i = first; i < Math.min(rows, first + 200); i++) {
                    RowPutChange put =
                            new RowPutChange(
                                    TABLE,
                                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                            .addPrimaryKeyColumn(
                                                    "id",
                                                    PrimaryKeyValue.fromString(SinkPart.id(i)))
                                            .build());
                    put.addColumn(new Column("n", ColumnValue.fromLong(i)));
                    put.addColumn(new Column("payload", ColumnValue.fromString(PAYLOAD)));
                    request.addRowChange(put);
                }
                if (!sync.batchWriteRow(request).isAllSucceed()) {
                    throw new IllegalStateException("Could not fill the scanned table");
                }
            }
            return splits(sync).size();
        } finally {
            sync.shutdown();
        }
    }

    private static List<Split> splits(SyncClient sync) {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest();
        request.setTableName(TABLE);
        request.setSplitSizeInByte(1, SPLIT_BYTES);
        return sync.computeSplitsBySize(request).getSplits();
    }

    /**
     * The raw loop: the splits in one queue, {@value #READERS} threads each reading a split's
     * GetRange pages of {@value #PAGE_ROWS} rows and then taking the next; every row must arrive.
     */
    private double raw(int rows) throws Exception {
        SyncClient sync = emulator.newSyncClient();
        ExecutorService threads = Executors.newFixedThreadPool(READERS);
        try {
            long start = System.nanoTime();
            ConcurrentLinkedQueue<Split> queue = new ConcurrentLinkedQueue<>(splits(sync));
            List<Future<Long>> readers = new ArrayList<>();
            for (int t = 0; t < READERS; t++) {
                readers.add(threads.submit(() -> readSplits(sync, queue)));
            }
            long read = 0;
            for (Future<Long> reader : readers) {
                read += reader.get();
            }
            double rate = rows / ((System.nanoTime() - start) / 1e9);
            if (read != rows) {
                throw new IllegalStateException(
                        "The raw loop read " + read + " of " + rows + " rows");
            }
            return rate;
        } finally {
            threads.shutdownNow();
            sync.shutdown();
        }
    }

    private static long readSplits(SyncClient sync, ConcurrentLinkedQueue<Split> queue) {
        long read = 0;
        for (Split split = queue.poll(); split != null; split = queue.poll()) {
            PrimaryKey next = split.getLowerBound();
            while (next != null) {
                RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(TABLE);
                criteria.setInclusiveStartPrimaryKey(next);
                criteria.setExclusiveEndPrimaryKey(split.getUpperBound());
                criteria.setDirection(Direction.FORWARD);
                criteria.setMaxVersions(1);
                criteria.setLimit(PAGE_ROWS);
                GetRangeResponse page = sync.getRange(new GetRangeRequest(criteria));
                read += page.getRows().size();
                next = page.getNextStartPrimaryKey();
            }
        }
        return read;
    }

    /** Flink SQL's scan into a blackhole sink: the whole job's rate and the net runtime's. */
    private double[] flink(int rows) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(READERS, new Configuration());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE scanned (id STRING, n BIGINT, payload STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('connector' = 'tablestore', "
                        + emulator.connection().sqlOptions()
                        + ", 'table.name' = '"
                        + TABLE
                        + "', 'scan.split-size' = '"
                        + SPLIT_BYTES
                        + "b')");
        tEnv.executeSql(
                "CREATE TABLE drained (id STRING, n BIGINT, payload STRING) WITH ('connector' ="
                        + " 'blackhole')");
        long start = System.nanoTime();
        TableResult result = tEnv.executeSql("INSERT INTO drained SELECT * FROM scanned");
        JobExecutionResult done = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        double whole = rows / ((System.nanoTime() - start) / 1e9);
        return new double[] {whole, rows / (done.getNetRuntime(TimeUnit.NANOSECONDS) / 1e9)};
    }

    /** Spark's batch read with a typed schema into the noop sink, which takes every column. */
    private double spark(int rows) {
        SparkSession spark = bench.spark();
        long start = System.nanoTime();
        spark.read()
                .format("tablestore")
                .options(connection.sparkOptions())
                .option("table.name", TABLE)
                .option("read.split.size", Long.toString(SPLIT_BYTES))
                .schema("id STRING, n BIGINT, payload STRING")
                .load()
                .write()
                .format("noop")
                .mode("overwrite")
                .save();
        return rows / ((System.nanoTime() - start) / 1e9);
    }

    private static double[] ratios(
            List<Round> rounds, java.util.function.ToDoubleFunction<Round> engine) {
        return rounds.stream().mapToDouble(r -> engine.applyAsDouble(r) / r.raw()).toArray();
    }
}
