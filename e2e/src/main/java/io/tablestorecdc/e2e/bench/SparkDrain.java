package io.tablestorecdc.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A {@code tablestore-cdc} query (local[2], Trigger.AvailableNow) into Spark's {@code noop} sink,
 * which still pulls every row through the partition readers.
 */
final class SparkDrain {

    static final StructType SCHEMA =
            new StructType()
                    .add("n", DataTypes.LongType)
                    .add("d", DataTypes.DoubleType)
                    .add("s", DataTypes.StringType);

    private final SparkSession spark;
    private final BenchEmulator emulator;

    SparkDrain(SparkSession spark, BenchEmulator emulator) {
        this.spark = spark;
        this.emulator = emulator;
    }

    static SparkSession session() {
        return SparkSession.builder()
                .master("local[2]")
                .appName("tablestore-cdc-bench")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.sql.streaming.numRecentProgressUpdates", "1000")
                .getOrCreate();
    }

    /** The query's input: the benchmark table's changes, with its attribute columns typed. */
    Dataset<Row> reader(String table, String tunnel, Map<String, String> extraOptions) {
        return reader(Map.of("table.name", table), tunnel, extraOptions);
    }

    /** The input of a source whose tables {@code selection} names (table.name or table.pattern). */
    Dataset<Row> reader(
            Map<String, String> selection, String tunnel, Map<String, String> extraOptions) {
        return spark.readStream()
                .format("tablestore-cdc")
                .options(emulator.connection().sparkOptions())
                .options(selection)
                .option("tunnel.name", tunnel)
                .options(extraOptions)
                .schema(SCHEMA)
                .load();
    }

    /** What one query did: the measurement and each batch's progress. */
    record Result(Measurement measurement, List<StreamingQueryProgress> progress) {}

    /** Drains the tunnel's backlog; the whole query time, and the sum of trigger times. */
    Result drain(String table, String tunnel, Map<String, String> extraOptions) throws Exception {
        return drain(Map.of("table.name", table), tunnel, extraOptions);
    }

    /** Drains the tunnels of the tables {@code selection} names. */
    Result drain(Map<String, String> selection, String tunnel, Map<String, String> extraOptions)
            throws Exception {
        Path checkpoint = Files.createTempDirectory("tablestore-cdc-bench-spark");
        long start = System.nanoTime();
        StreamingQuery query =
                reader(selection, tunnel, extraOptions)
                        .writeStream()
                        .format("noop")
                        .trigger(Trigger.AvailableNow())
                        .option("checkpointLocation", checkpoint.toString())
                        .start();
        query.awaitTermination();
        long nanos = System.nanoTime() - start;
        List<StreamingQueryProgress> progress = List.of(query.recentProgress());
        long records = 0;
        long triggerMs = 0;
        for (StreamingQueryProgress p : progress) {
            records += p.numInputRows();
            triggerMs += p.durationMs().getOrDefault("triggerExecution", 0L);
        }
        Measurement m = new Measurement("spark", records, nanos, triggerMs * 1_000_000L);
        return new Result(m, new ArrayList<>(progress));
    }
}
