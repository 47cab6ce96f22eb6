package io.tablestorecdc.spark;

import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The application {@link ApplicationExitITCase} runs in a child JVM, written as a user writes one:
 * read a tunnel to its end once, stop the query, stop Spark, return from {@code main}. Its last
 * line says when {@code main} returned.
 *
 * <p>Arguments: endpoint, instance, access key id, secret, table, tunnel.
 */
public final class StopThenReturn {

    /** The line printed right before {@code main} returns. */
    static final String RETURNED = "main returned";

    public static void main(String[] args) throws Exception {
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("stop-then-return")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
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
                        .writeStream()
                        .format("noop")
                        .option(
                                "checkpointLocation",
                                java.nio.file.Files.createTempDirectory("stop-then-return")
                                        .toString())
                        .trigger(Trigger.AvailableNow())
                        .start();
        query.awaitTermination(TimeUnit.MINUTES.toMillis(2));
        query.stop();
        spark.stop();
        System.out.println(RETURNED);
        System.out.flush();
    }

    private StopThenReturn() {}
}
