package io.tablestorecdc.spark;

import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The driver {@link CrashRecoveryITCase} runs in a child JVM and kills with SIGKILL: reads a tunnel
 * into a JSON file sink, a few records per batch.
 *
 * <p>Arguments: endpoint, instance, access key id, secret, table, tunnel, output dir, checkpoint,
 * trigger ({@code continuous} or {@code available-now}).
 */
public final class CrashableQuery {

    private CrashableQuery() {}

    public static void main(String[] args) throws Exception {
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("crashable-query")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
        boolean availableNow = args[8].equals("available-now");
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
                        .option("max.rows.per.channel", "4")
                        .load()
                        .selectExpr("id", "_op", "_seq")
                        .writeStream()
                        .format("json")
                        .option("path", args[6])
                        .option("checkpointLocation", args[7])
                        .trigger(
                                availableNow
                                        ? Trigger.AvailableNow()
                                        : Trigger.ProcessingTime(100, TimeUnit.MILLISECONDS))
                        .start();
        query.awaitTermination();
        spark.stop();
    }
}
