package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.e2e.compat.MemoryRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.collection.JavaConverters;

/**
 * The Spark engine's own ceiling: the same query shape (AvailableNow into {@code noop}, local[2])
 * over Spark's {@code MemoryStream} holding as many rows as the tunnel backlog, with the same
 * columns the {@code tablestore-cdc} source produces, in as many partitions as it has channels.
 */
final class SparkMemoryDrain {

    private static final String PAYLOAD = "x".repeat(48);
    private static final String CHANNEL = "00000000-0000-0000-0000-000000000000_0";

    private final SparkSession spark;
    private final StructType schema;
    private final int partitions;
    private final List<Row> rows;

    /** Rows like the source's for {@code schema} (the tablestore-cdc query's output schema). */
    SparkMemoryDrain(SparkSession spark, StructType schema, int partitions, int rowCount) {
        this.spark = spark;
        this.schema = schema;
        this.partitions = partitions;
        this.rows = new ArrayList<>(rowCount);
        for (int i = 0; i < rowCount; i++) {
            rows.add(row(schema, i));
        }
    }

    /** Fills a fresh MemoryStream (untimed), then times the query that drains it. */
    Measurement drain() throws Exception {
        Dataset<Row> stream = MemoryRows.stream(spark, schema, partitions, rows);
        Path checkpoint = Files.createTempDirectory("tablestore-cdc-bench-memory");
        long start = System.nanoTime();
        StreamingQuery query =
                stream.writeStream()
                        .format("noop")
                        .trigger(Trigger.AvailableNow())
                        .option("checkpointLocation", checkpoint.toString())
                        .start();
        query.awaitTermination();
        long nanos = System.nanoTime() - start;
        long records = 0;
        long triggerMs = 0;
        for (StreamingQueryProgress p : query.recentProgress()) {
            records += p.numInputRows();
            triggerMs += p.durationMs().getOrDefault("triggerExecution", 0L);
        }
        return new Measurement("spark-memory", records, nanos, triggerMs * 1_000_000L);
    }

    private static Row row(StructType type, long i) {
        StructField[] fields = type.fields();
        Object[] values = new Object[fields.length];
        for (int f = 0; f < fields.length; f++) {
            values[f] = value(fields[f].name(), fields[f].dataType(), i);
        }
        return RowFactory.create(values);
    }

    /** A value of the type and size the source produces for this column. */
    private static Object value(String name, DataType type, long i) {
        if (type instanceof StructType struct) {
            return row(struct, i);
        }
        if (type instanceof MapType) {
            return JavaConverters.mapAsScalaMap(Map.of("n", "PUT", "d", "PUT", "s", "PUT"));
        }
        if (type.equals(DataTypes.StringType)) {
            return switch (name) {
                case "_op" -> "PUT";
                case "_table" -> "bench";
                case "_channel" -> CHANNEL;
                case "s" -> PAYLOAD;
                default -> String.format(Locale.ROOT, "row-%09d", i);
            };
        }
        if (type.equals(DataTypes.LongType)) {
            return i;
        }
        if (type.equals(DataTypes.IntegerType)) {
            return (int) i;
        }
        if (type.equals(DataTypes.DoubleType)) {
            return i / 3.0;
        }
        if (type.equals(DataTypes.TimestampType)) {
            return new Timestamp(1_700_000_000_000L + i);
        }
        throw new IllegalArgumentException(
                "No in-memory value for column " + name + " of type " + type);
    }
}
