package io.tablestorecdc.e2e.crash;

import com.alicloud.openservices.tablestore.SyncClient;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderReplica;
import io.tablestorecdc.e2e.orders.OrdersTable;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The Spark driver that {@link SparkCrashLoopITCase} runs in a child JVM and kills: a streaming
 * query on the tunnel whose {@code foreachBatch} first appends the batch to an append-only change
 * log (with its batch id), then upserts it into the replica table by primary key, and writes it
 * into a second replica with {@code format("tablestore")}.
 *
 * <p>Arguments ({@code key=value}): endpoint, instance, accessKeyId, table, tunnel, replica,
 * sinkReplica, checkpoint, changeLog, holdAt (0, or the delivery inside whose commit to hold),
 * holdMarker.
 */
public final class SparkCrashChild {

    /** Orders the changes of one key by the connector's {@code _seq}. */
    private static final Comparator<Row> BY_SEQUENCE =
            Comparator.<Row>comparingInt(r -> seq(r).getInt(0))
                    .thenComparingLong(r -> seq(r).getLong(1))
                    .thenComparingInt(r -> seq(r).getInt(2));

    private final Path changeLog;
    private final OrderReplica replica;
    private final CommitHold hold;
    private final Map<String, String> sinkReplica;

    private SparkCrashChild(
            Path changeLog,
            OrderReplica replica,
            CommitHold hold,
            Map<String, String> sinkReplica) {
        this.changeLog = changeLog;
        this.replica = replica;
        this.hold = hold;
        this.sinkReplica = sinkReplica;
    }

    public static void main(String[] argv) throws Exception {
        ChildArgs args = new ChildArgs(argv);
        DemoTarget target = args.target();
        SyncClient client = target.syncClient();
        SparkCrashChild sink =
                new SparkCrashChild(
                        args.path("changeLog"),
                        new OrderReplica(client, args.get("replica")),
                        new CommitHold(args.number("holdAt"), args.path("holdMarker")),
                        Map.of(
                                "endpoint", target.endpoint(),
                                "instance.name", target.instanceName(),
                                "access.key.id", target.accessKeyId(),
                                "access.key.secret", target.accessKeySecret(),
                                "table.name", args.get("sinkReplica")));
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc-crash-loop")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
        ChildOutput.say("spark session ready");
        StreamingQuery query =
                spark.readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", target.endpoint())
                        .option("instance.name", target.instanceName())
                        .option("access.key.id", target.accessKeyId())
                        .option("access.key.secret", target.accessKeySecret())
                        .option("table.name", args.get("table"))
                        .option("tunnel.name", args.get("tunnel"))
                        .option("max.rows.per.trigger", "500")
                        .option("channel.read.budget", "1s")
                        .schema(OrdersTable.SPARK_SCHEMA)
                        .load()
                        .writeStream()
                        .queryName("crash-loop")
                        .trigger(Trigger.ProcessingTime(200, TimeUnit.MILLISECONDS))
                        .option("checkpointLocation", args.get("checkpoint"))
                        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) sink::apply)
                        .start();
        ChildOutput.say("query started");
        try {
            query.awaitTermination(); // runs until the test kills this JVM, or the query fails
        } catch (StreamingQueryException e) {
            // Spark's non-daemon threads would keep a failed driver's JVM alive: end it, so that
            // the test sees the failure as the exit of the process, as with spark-submit.
            e.printStackTrace();
            System.exit(1);
        }
    }

    private void apply(Dataset<Row> batch, long batchId) {
        List<Row> rows = batch.collectAsList();
        List<DeliveredChange> received = new ArrayList<>(rows.size());
        rows.forEach(r -> received.add(delivered(r)));
        ChangeLog.append(changeLog, batchId, received);
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(BY_SEQUENCE); // stable: a key's changes in commit order
        replica.apply(sorted.stream().map(SparkCrashChild::toChange).toList());
        // The second replica: the same rows through the product's own sink, in one partition so
        // that a key's changes are written in _seq order.
        batch.sparkSession()
                .createDataFrame(rows, batch.schema())
                .coalesce(1)
                .write()
                .format("tablestore")
                .options(sinkReplica)
                .mode("append")
                .save();
        ChildOutput.say("batch " + batchId + ": " + rows.size() + " changes");
        if (!rows.isEmpty()) {
            hold.delivered(batchId);
        }
    }

    private static DeliveredChange delivered(Row row) {
        Row seq = seq(row);
        return DeliveredChange.of(toChange(row), seq.getInt(0), seq.getInt(2));
    }

    private static OrderChange toChange(Row row) {
        Timestamp commit = row.getAs("_commit_ts");
        OrderChange change =
                OrderChange.of(
                        row.getAs(OrdersTable.ORDER_ID),
                        OrderChange.Action.valueOf(row.getAs("_op")),
                        row.getAs("_channel"),
                        commit == null ? 0 : seq(row).getLong(1));
        // _column_ops tells a removed column from an untouched one; a null value cannot.
        Map<String, String> ops = row.getJavaMap(row.fieldIndex("_column_ops"));
        ops.forEach(
                (column, op) -> {
                    if ("PUT".equals(op)) {
                        change.put(column, row.getAs(column));
                    } else {
                        change.delete(column);
                    }
                });
        return change;
    }

    private static Row seq(Row row) {
        return row.getStruct(row.fieldIndex("_seq"));
    }
}
