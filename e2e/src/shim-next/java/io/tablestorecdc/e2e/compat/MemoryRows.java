package io.tablestorecdc.e2e.compat;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream;
import org.apache.spark.sql.types.StructType;
import scala.collection.JavaConverters;

/**
 * Spark's in-memory stream, filled with rows. Spark 4 variant: {@code MemoryStream} moved to {@code
 * org.apache.spark.sql.execution.streaming.runtime} and takes an {@code IterableOnce} (Scala 2.13).
 */
public final class MemoryRows {

    private MemoryRows() {}

    /** A streaming DataFrame over a new MemoryStream of {@code partitions} holding {@code rows}. */
    public static Dataset<Row> stream(
            SparkSession spark, StructType schema, int partitions, List<Row> rows) {
        MemoryStream<Row> stream =
                MemoryStream.apply(partitions, Encoders.row(schema), spark.sqlContext());
        stream.addData((scala.collection.IterableOnce<Row>) JavaConverters.asScalaBuffer(rows));
        return stream.toDF();
    }
}
