package io.tablestorecdc.spark;

import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * The examples of docs/spark.md, "Many tables in one query", as methods a test runs: the lines
 * between the markers are the page's code blocks, character for character ({@link
 * QuickStartDocITCase} checks both).
 */
final class QuickStart {

    static final String TABLES_START = "// [START many tables]";
    static final String TABLES_END = "// [END many tables]";
    static final String ROUTE_START = "// [START each table apart]";
    static final String ROUTE_END = "// [END each table apart]";

    private QuickStart() {}

    /** The example of docs/spark.md, "Many tables in one query": the changes of several tables. */
    static Dataset<Row> manyTables(
            SparkSession spark,
            String endpoint,
            String instanceName,
            String accessKeyId,
            String accessKeySecret) {
        // [START many tables]
        Dataset<Row> changes =
                spark.readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", endpoint)
                        .option("instance.name", instanceName)
                        .option("access.key.id", accessKeyId)
                        .option("access.key.secret", accessKeySecret)
                        .option("table.pattern", "orders_[0-9]{4}") // or table.name = "a,b"
                        .option("table.exclude", "orders_2019")
                        .option("tunnel.name", "orders-to-lake") // one tunnel per table
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .schema("qty BIGINT, name STRING") // _table says which table a row is of
                        .load();
        // [END many tables]
        return changes;
    }

    /**
     * The example of docs/spark.md, "Many tables in one query": each batch's changes, a directory
     * per table.
     */
    static StreamingQuery eachTableApart(
            Dataset<Row> changes, String checkpointLocation, String outputPath)
            throws TimeoutException {
        // [START each table apart]
        StreamingQuery query =
                changes.writeStream()
                        .option("checkpointLocation", checkpointLocation)
                        .foreachBatch(
                                (VoidFunction2<Dataset<Row>, Long>)
                                        (batch, batchId) ->
                                                batch.write()
                                                        .mode("overwrite") // a replay overwrites
                                                        .partitionBy("_table") // one dir per table
                                                        .parquet(outputPath + "/batch=" + batchId))
                        .start();
        // [END each table apart]
        return query;
    }
}
