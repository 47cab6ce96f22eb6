package io.tablestorecdc.spark;

import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/** Streams the changes of table {@code orders} into Parquet files, a directory per batch. */
public class OrdersToSpark {

    public static void main(String[] args) throws Exception {
        SparkSession spark = SparkSession.builder().appName("orders-to-spark").getOrCreate();
        StreamingQuery query =
                start(
                        spark,
                        System.getenv("TABLESTORE_ENDPOINT"), // https://<instance>.<region>...
                        System.getenv("TABLESTORE_INSTANCE"),
                        System.getenv("ALIBABA_CLOUD_ACCESS_KEY_ID"),
                        System.getenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET"),
                        args[0], // checkpoint location, e.g. hdfs:///checkpoints/orders-to-spark
                        args[1]); // output directory
        query.awaitTermination();
    }

    static StreamingQuery start(
            SparkSession spark,
            String endpoint,
            String instanceName,
            String accessKeyId,
            String accessKeySecret,
            String checkpointLocation,
            String outputPath)
            throws TimeoutException {
        Dataset<Row> changes =
                spark.readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", endpoint)
                        .option("instance.name", instanceName)
                        .option("access.key.id", accessKeyId)
                        .option("access.key.secret", accessKeySecret)
                        .option("table.name", "orders")
                        .option("tunnel.name", "orders-to-spark") // one query per tunnel
                        .option("tunnel.create", "stream") // create it if it does not exist
                        .schema("qty BIGINT, name STRING") // attribute columns wanted (optional)
                        .load();

        return changes.writeStream()
                .option("checkpointLocation", checkpointLocation)
                // a replayed batch overwrites what it wrote before (or MERGE by key)
                .foreachBatch(
                        (VoidFunction2<Dataset<Row>, Long>)
                                (batch, batchId) ->
                                        batch.write()
                                                .mode("overwrite")
                                                .parquet(outputPath + "/batch=" + batchId))
                .start();
    }
}
