package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;

/**
 * Part {@code lookup}: Flink SQL lookup joins against a {@code 'connector' = 'tablestore'}
 * dimension table of {@code lookupKeys} rows, probed {@code lookupProbes} times (parallelism 1,
 * every probe finds its row, keys spread over the table), with the cache off (async with Flink's
 * default buffer capacity and with 400, then sync) and with a partial cache large enough for the
 * table; beside them a raw loop of BatchGetRow requests of 100 keys over the same probes, one at a
 * time, and a raw loop of one GetRow a probe (what any synchronous lookup is bound by: a round trip
 * a probe). Rates are probes per second, the whole job from submission (the local cluster's start
 * included, about a second); each variant's rate is also divided by the BatchGetRow loop's of the
 * same round, and the sync variant's by the GetRow loop's. One warm-up round is not reported.
 */
final class LookupPart {

    /**
     * A variant of the dimension table: its name in the report, its lookup options, and Flink's
     * async lookup buffer capacity (0: Flink's default, 100).
     */
    private record Variant(String name, String options, int capacity) {}

    private static final String SYNC = "no cache, sync";

    private static final List<Variant> VARIANTS =
            List.of(
                    new Variant("no cache, async", "'lookup.async' = 'true'", 0),
                    new Variant("no cache, async, capacity 400", "'lookup.async' = 'true'", 400),
                    new Variant(SYNC, "'lookup.async' = 'false'", 0),
                    new Variant(
                            "partial cache",
                            "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' ="
                                    + " '1000000'",
                            0));

    private static final String TABLE = "lookup_dim";

    private final ThroughputBenchmark bench;
    private final BenchEmulator emulator;

    LookupPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.emulator = bench.emulator();
    }

    void run() throws Exception {
        int keys = bench.settings().lookupKeys();
        int probes = bench.settings().lookupProbes();
        int runs = Math.max(1, bench.settings().runs());
        fill(keys);
        say(
                "%nLookup joins, %d probes of a %d-row dimension table, parallelism 1"
                        + " (probes/s):",
                probes, keys);
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<Double>> overRaw = new LinkedHashMap<>();
        List<Double> syncOverGetRow = new ArrayList<>();
        for (int round = 0; round <= runs; round++) {
            double raw = raw(keys, probes);
            double rawGetRow = rawGetRow(keys, probes);
            StringBuilder line =
                    new StringBuilder(
                            String.format("raw BatchGetRow %.0f, raw GetRow %.0f", raw, rawGetRow));
            Map<String, Double> measured = new LinkedHashMap<>();
            for (Variant variant : VARIANTS) {
                double[] rate = flink(variant, keys, probes);
                measured.put(variant.name(), rate[1]);
                line.append(
                        String.format(
                                ", %s %.0f (whole job %.0f)", variant.name(), rate[1], rate[0]));
            }
            say("  %s %d: %s", round == 0 ? "warm-up" : "round", round, line);
            if (round == 0) {
                continue;
            }
            rates.computeIfAbsent("raw BatchGetRow", k -> new ArrayList<>()).add(raw);
            rates.computeIfAbsent("raw GetRow", k -> new ArrayList<>()).add(rawGetRow);
            syncOverGetRow.add(measured.get(SYNC) / rawGetRow);
            measured.forEach(
                    (name, rate) -> {
                        rates.computeIfAbsent(name, k -> new ArrayList<>()).add(rate);
                        overRaw.computeIfAbsent(name, k -> new ArrayList<>()).add(rate / raw);
                    });
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("keys", keys);
        json.put("probes", probes);
        Map<String, Object> medians = new LinkedHashMap<>();
        rates.forEach((name, values) -> medians.put(name, median(values)));
        json.put("probesPerSecond", medians);
        Map<String, Object> ratios = new LinkedHashMap<>();
        overRaw.forEach(
                (name, values) -> {
                    double[] r = values.stream().mapToDouble(Double::doubleValue).toArray();
                    ratios.put(name, ConsumerFigures.median(r));
                    say("  %s over raw, paired by round: %s", name, PairedRatios.describe(r));
                });
        json.put("overRaw", ratios);
        double[] sync = syncOverGetRow.stream().mapToDouble(Double::doubleValue).toArray();
        json.put("syncOverRawGetRow", ConsumerFigures.median(sync));
        say("  %s over raw GetRow, paired by round: %s", SYNC, PairedRatios.describe(sync));
        say(
                "  medians: %s",
                medians.entrySet().stream()
                        .map(e -> String.format("%s %.0f", e.getKey(), (Double) e.getValue()))
                        .toList());
        bench.report("lookup", json);
    }

    /** The {@code i}-th probe's key: all keys, spread over the table, each about as often. */
    private static long probeKey(long i, int keys) {
        return (i * 7919) % keys;
    }

    private void fill(int keys) {
        SyncClient sync = emulator.newSyncClient();
        try {
            TableMeta meta = new TableMeta(TABLE);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            for (int first = 0; first < keys; first += 200) {
                BatchWriteRowRequest request = new BatchWriteRowRequest();
                for (int i = first; i < Math.min(keys, first + 200); i++) {
                    RowPutChange put = new RowPutChange(TABLE, key(i));
                    put.addColumn(new Column("n", ColumnValue.fromLong(i)));
                    put.addColumn(new Column("payload", ColumnValue.fromString("x".repeat(48))));
                    request.addRowChange(put);
                }
                if (!sync.batchWriteRow(request).isAllSucceed()) {
                    throw new IllegalStateException("Could not fill the dimension table");
                }
            }
        } finally {
            sync.shutdown();
        }
    }

    private static PrimaryKey key(long i) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(SinkPart.id(i)))
                .build();
    }

    /** BatchGetRow requests of 100 of the probes' keys, one at a time; every key must be found. */
    private double raw(int keys, int probes) {
        SyncClient sync = emulator.newSyncClient();
        try {
            long found = 0;
            long start = System.nanoTime();
            for (int first = 0; first < probes; first += 100) {
                MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(TABLE);
                criteria.setMaxVersions(1);
                for (int i = first; i < Math.min(probes, first + 100); i++) {
                    criteria.addRow(key(probeKey(i, keys)));
                }
                BatchGetRowRequest request = new BatchGetRowRequest();
                request.addMultiRowQueryCriteria(criteria);
                BatchGetRowResponse response = sync.batchGetRow(request);
                for (BatchGetRowResponse.RowResult row : response.getSucceedRows()) {
                    if (row.getRow() != null) {
                        found++;
                    }
                }
            }
            double rate = probes / ((System.nanoTime() - start) / 1e9);
            if (found != probes) {
                throw new IllegalStateException(
                        "The raw loop found " + found + " of " + probes + " probed rows");
            }
            return rate;
        } finally {
            sync.shutdown();
        }
    }

    /** One GetRow a probe, one at a time, as a synchronous lookup must; every key must be found. */
    private double rawGetRow(int keys, int probes) {
        SyncClient sync = emulator.newSyncClient();
        try {
            long found = 0;
            long start = System.nanoTime();
            for (int i = 0; i < probes; i++) {
                SingleRowQueryCriteria criteria =
                        new SingleRowQueryCriteria(TABLE, key(probeKey(i, keys)));
                criteria.setMaxVersions(1);
                if (sync.getRow(new GetRowRequest(criteria)).getRow() != null) {
                    found++;
                }
            }
            double rate = probes / ((System.nanoTime() - start) / 1e9);
            if (found != probes) {
                throw new IllegalStateException(
                        "The raw GetRow loop found " + found + " of " + probes + " probed rows");
            }
            return rate;
        } finally {
            sync.shutdown();
        }
    }

    /** The variant's rates: the whole job from submission, and its net runtime's. */
    private double[] flink(Variant variant, int keys, int probes) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(1, new Configuration());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (variant.capacity() > 0) {
            tEnv.getConfig()
                    .set(
                            ExecutionConfigOptions.TABLE_EXEC_ASYNC_LOOKUP_BUFFER_CAPACITY,
                            variant.capacity());
        }
        DataStream<String> ids =
                env.fromSource(
                        new DataGeneratorSource<>(
                                i -> SinkPart.id(probeKey(i, keys)), probes, Types.STRING),
                        WatermarkStrategy.noWatermarks(),
                        "probe keys");
        tEnv.createTemporaryView(
                "probe",
                tEnv.fromDataStream(
                        ids, Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));
        tEnv.executeSql(
                "CREATE TABLE dim (id STRING, n BIGINT, payload STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('connector' = 'tablestore', "
                        + emulator.connection().sqlOptions()
                        + ", 'table.name' = '"
                        + TABLE
                        + "', "
                        + variant.options()
                        + ")");
        tEnv.executeSql(
                "CREATE TABLE joined (id STRING, n BIGINT) WITH ('connector' = 'blackhole')");
        long start = System.nanoTime();
        TableResult result =
                tEnv.executeSql(
                        "INSERT INTO joined SELECT p.f0, d.n FROM probe AS p JOIN dim FOR"
                                + " SYSTEM_TIME AS OF p.pt AS d ON p.f0 = d.id");
        JobExecutionResult done = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        double whole = probes / ((System.nanoTime() - start) / 1e9);
        return new double[] {whole, probes / (done.getNetRuntime(TimeUnit.NANOSECONDS) / 1e9)};
    }

    private static double median(List<Double> values) {
        return ConsumerFigures.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
