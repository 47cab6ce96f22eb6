package io.tablestorecdc.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The program {@link ShadedJarIT} runs in a fresh JVM whose classpath holds Spark and the shaded
 * jar only: drains a tunnel with Trigger.AvailableNow into a JSON file sink.
 *
 * <p>Arguments: endpoint, instance, access key id, secret, table, tunnel, output dir, checkpoint.
 */
public final class ShadedJarQuery {

    private ShadedJarQuery() {}

    public static void main(String[] args) throws Exception {
        SparkSession spark =
                SparkSession.builder()
                        .master("local[1]")
                        .appName("shaded-jar-query")
                        .config("spark.ui.enabled", "false")
                        .getOrCreate();
        StreamingQuery query =
                spark.readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", args[0])
                        .option("instance.name", args[1])
                        .option("access.key.id", args[2])
                        .option("access.key.secret", args[3])
                        .option("table.name", args[4])
                        .option("tunnel.name", args[5])
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .load()
                        .selectExpr("id", "_op")
                        .writeStream()
                        .format("json")
                        .option("path", args[6])
                        .option("checkpointLocation", args[7])
                        .trigger(Trigger.AvailableNow())
                        .start();
        query.awaitTermination();
        spark.stop();
    }
}
