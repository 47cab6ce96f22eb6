package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import com.alicloud.openservices.tablestore.SyncClient;
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
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.RowKey;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.e2e.InstanceConnection;
import io.tablestorecdc.flink.sink.RowWriteConverter;
import io.tablestorecdc.flink.sink.TablestoreSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.spark.sql.SparkSession;

/**
 * Part {@code sink}: the {@code tablestore} sinks' cost against the service's own batch write. Each
 * round writes the same {@code sinkRows} rows (a string key and two attribute columns) into a new
 * table three times, with one writer each: a raw loop of {@code BatchWriteRow} requests of 200 puts
 * (the sinks' batch size) on a synchronous client, Flink's {@code TablestoreSink} at parallelism 1
 * behind a generator source, and Spark's {@code df.write.format("tablestore")} from a one-partition
 * frame. Each engine's rate is divided by the raw loop's of the same round (paired ratios), after
 * one warm-up round that is not reported. Flink is timed twice: the whole job from submission, and
 * its net runtime as the job reports it (without the local cluster's start).
 */
final class SinkPart {

    private static final int BATCH = 200;
    private static final String PAYLOAD = "x".repeat(48);

    private final ThroughputBenchmark bench;
    private final BenchEmulator emulator;
    private final InstanceConnection connection;

    SinkPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.emulator = bench.emulator();
        this.connection = emulator.connection();
    }

    /** One round's rates, rows per second. */
    record Round(double raw, double flink, double flinkNet, double spark) {}

    void run() throws Exception {
        int rows = bench.settings().sinkRows();
        int runs = Math.max(1, bench.settings().runs());
        say("%nSinks against a raw BatchWriteRow loop, %d rows each, one writer (rows/s):", rows);
        List<Round> rounds = new ArrayList<>();
        for (int round = 0; round <= runs; round++) {
            double raw = raw(table("sink_raw", round), rows);
            double[] flink = flink(table("sink_flink", round), rows);
            Round r = new Round(raw, flink[0], flink[1], spark(table("sink_spark", round), rows));
            say(
                    "  %s %d: raw %.0f, flink %.0f (net %.0f), spark %.0f",
                    round == 0 ? "warm-up" : "round",
                    round,
                    r.raw(),
                    r.flink(),
                    r.flinkNet(),
                    r.spark());
            if (round > 0) {
                rounds.add(r);
            }
        }
        double[] flinkRatio = ratios(rounds, Round::flink);
        double[] flinkNetRatio = ratios(rounds, Round::flinkNet);
        double[] sparkRatio = ratios(rounds, Round::spark);
        say(
                "  over raw, paired by round: flink %s; flink net %s; spark %s",
                PairedRatios.describe(flinkRatio),
                PairedRatios.describe(flinkNetRatio),
                PairedRatios.describe(sparkRatio));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("rows", rows);
        json.put("rounds", rounds.stream().map(ThroughputBenchmark::record).toList());
        json.put("flinkOverRaw", ConsumerFigures.median(flinkRatio));
        json.put("flinkNetOverRaw", ConsumerFigures.median(flinkNetRatio));
        json.put("sparkOverRaw", ConsumerFigures.median(sparkRatio));
        bench.report("sink", json);
    }

    private String table(String prefix, int round) {
        String name = prefix + "_" + round;
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        try (Clients clients = new Clients()) {
            clients.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        }
        return name;
    }

    /** The raw loop: the rows in BatchWriteRow requests of {@value #BATCH}, one at a time. */
    private double raw(String table, int rows) {
        try (Clients clients = new Clients()) {
            long start = System.nanoTime();
            for (int first = 0; first < rows; first += BATCH) {
                BatchWriteRowRequest request = new BatchWriteRowRequest();
                for (int i = first; i < Math.min(rows, first + BATCH); i++) {
                    RowPutChange put =
                            new RowPutChange(
                                    table,
                                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                            .addPrimaryKeyColumn(
                                                    "id", PrimaryKeyValue.fromString(id(i)))
                                            .build());
                    put.addColumn(new Column("n", ColumnValue.fromLong(i)));
                    put.addColumn(new Column("payload", ColumnValue.fromString(PAYLOAD)));
                    request.addRowChange(put);
                }
                BatchWriteRowResponse response = clients.sync.batchWriteRow(request);
                if (!response.isAllSucceed()) {
                    throw new IllegalStateException(
                            "The raw loop's BatchWriteRow failed for "
                                    + response.getFailedRows().size()
                                    + " rows: "
                                    + response.getFailedRows().get(0).getError());
                }
            }
            return rows / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** Flink's sink: whole-job and net-runtime rates. */
    private double[] flink(String table, int rows) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        env.fromSource(
                        new DataGeneratorSource<>(i -> i, rows, Types.LONG),
                        WatermarkStrategy.noWatermarks(),
                        "row numbers")
                .sinkTo(
                        TablestoreSink.<Long>builder()
                                .setEndpoint(emulator.endpoint())
                                .setInstanceName(emulator.instanceName())
                                .setCredentials(emulator.accessKeyId(), emulator.accessKeySecret())
                                .setTableName(table)
                                .setBufferFlushInterval(Duration.ofSeconds(1))
                                .setConverter(new NumberedRows())
                                .build())
                .name("tablestore sink");
        long start = System.nanoTime();
        JobExecutionResult result = env.execute("tablestore-cdc bench sink");
        double whole = rows / ((System.nanoTime() - start) / 1e9);
        double net = rows / (result.getNetRuntime(TimeUnit.NANOSECONDS) / 1e9);
        return new double[] {whole, net};
    }

    /** Spark's batch write of a one-partition frame of the same rows. */
    private double spark(String table, int rows) {
        SparkSession spark = bench.spark();
        long start = System.nanoTime();
        spark.range(0, rows, 1, 1)
                .selectExpr(
                        "format_string('k%08d', id) AS id",
                        "id AS n", "'" + PAYLOAD + "' AS payload")
                .write()
                .format("tablestore")
                .options(connection.sparkOptions())
                .option("table.name", table)
                .mode("append")
                .save();
        return rows / ((System.nanoTime() - start) / 1e9);
    }

    private static double[] ratios(
            List<Round> rounds, java.util.function.ToDoubleFunction<Round> engine) {
        return rounds.stream().mapToDouble(r -> engine.applyAsDouble(r) / r.raw()).toArray();
    }

    static String id(long i) {
        return String.format(Locale.ROOT, "k%08d", i);
    }

    /** Row {@code i}: key {@code k<i>}, columns {@code n} = i and a 48-character payload. */
    static final class NumberedRows implements RowWriteConverter<Long> {
        @Override
        public Optional<RowWrite> convert(Long i) {
            Map<String, CellValue> columns = new LinkedHashMap<>();
            columns.put("n", CellValue.ofInteger(i));
            columns.put("payload", CellValue.ofString(PAYLOAD));
            return Optional.of(
                    RowWrite.put(
                            RowKey.of("id", CellValue.ofString(id(i))),
                            columns,
                            SequenceInfo.NONE));
        }
    }

    private final class Clients implements AutoCloseable {
        final SyncClient sync = emulator.newSyncClient();

        @Override
        public void close() {
            sync.shutdown();
        }
    }
}
