package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.DemoTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark driver that {@link SparkTablesCrashITCase} runs in a child JVM and kills: one query of
 * every table matching {@code pattern}, whose {@code foreachBatch} appends each batch to a log, one
 * line per change ({@code batchId table id}) and then a closing line ({@code end batchId count}),
 * so that a batch cut short by a kill is seen as incomplete.
 *
 * <p>Arguments ({@code key=value}): endpoint, instance, accessKeyId, pattern, tunnel, checkpoint,
 * log.
 */
public final class SparkTablesCrashChild {

    private SparkTablesCrashChild() {}

    public static void main(String[] argv) throws Exception {
        ChildArgs args = new ChildArgs(argv);
        DemoTarget target = args.target();
        Path log = args.path("log");
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc-tables-crash")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
        StreamingQuery query =
                spark.readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", target.endpoint())
                        .option("instance.name", target.instanceName())
                        .option("access.key.id", target.accessKeyId())
                        .option("access.key.secret", target.accessKeySecret())
                        .option("table.pattern", args.get("pattern"))
                        .option("table.discovery.interval", "1s")
                        .option("tunnel.name", args.get("tunnel"))
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .option("max.rows.per.trigger", "40")
                        .option("channel.read.budget", "1s")
                        // several tables' channels in one task, as a query of many tables has
                        .option("max.channels.per.partition", "3")
                        .schema(new StructType().add("n", DataTypes.LongType))
                        .load()
                        .writeStream()
                        .trigger(Trigger.ProcessingTime(200, TimeUnit.MILLISECONDS))
                        .option("checkpointLocation", args.get("checkpoint"))
                        .foreachBatch(
                                (VoidFunction2<Dataset<Row>, Long>)
                                        (batch, id) -> append(log, id, batch.collectAsList()))
                        .start();
        ChildOutput.say("query started");
        try {
            query.awaitTermination(); // runs until the test kills this JVM, or the query fails
        } catch (StreamingQueryException e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void append(Path log, long batchId, List<Row> rows) {
        StringBuilder text = new StringBuilder();
        for (Row r : rows) {
            text.append(batchId)
                    .append(' ')
                    .append(r.getString(r.fieldIndex("_table")))
                    .append(' ')
                    .append(r.getString(r.fieldIndex("id")))
                    .append('\n');
        }
        text.append("end ").append(batchId).append(' ').append(rows.size()).append('\n');
        try {
            Files.writeString(
                    log,
                    text,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildOutput.say("batch " + batchId + ": " + rows.size() + " changes");
    }
}
