package io.tablestorecdc.e2e.handover;

import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrdersTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A Spark query on {@code format("tablestore-cdc")} whose {@code foreachBatch} records every change
 * with its batch id: the sink of the Spark side of the end-to-end tests.
 */
public final class SparkCapture implements AutoCloseable {

    private final DeliveryLog log = new DeliveryLog("spark");
    private final StreamingQuery query;

    private SparkCapture(
            SparkSession spark, TunnelTarget target, Path checkpoint, Map<String, String> options)
            throws TimeoutException {
        this.query =
                spark.readStream()
                        .format("tablestore-cdc")
                        .options(target.connection().sparkOptions())
                        .option("table.name", target.table())
                        .option("tunnel.name", target.tunnel())
                        .option("meta.table", target.metaTable())
                        .option("channel.read.budget", "1s")
                        .options(options)
                        .schema(OrdersTable.SPARK_SCHEMA)
                        .load()
                        .writeStream()
                        .trigger(Trigger.ProcessingTime(250))
                        .option("checkpointLocation", checkpoint.toString())
                        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) this::record)
                        .start();
    }

    /** Starts a query with its checkpoint at {@code checkpoint} (a new location starts fresh). */
    public static SparkCapture start(SparkSession spark, OrdersStream stream, Path checkpoint)
            throws TimeoutException {
        return start(spark, stream.tunnelTarget(), checkpoint, Map.of());
    }

    /**
     * Starts a query on {@code target} with its checkpoint at {@code checkpoint} (a new location
     * starts fresh), with more source {@code options}.
     */
    public static SparkCapture start(
            SparkSession spark, TunnelTarget target, Path checkpoint, Map<String, String> options)
            throws TimeoutException {
        return new SparkCapture(spark, target, checkpoint, options);
    }

    private void record(Dataset<Row> batch, long batchId) {
        List<SeenChange> changes = new ArrayList<>();
        for (Row row : batch.collectAsList()) {
            changes.add(toSeen(row).in(batchId));
        }
        log.addAll(changes);
    }

    static SeenChange toSeen(Row row) {
        Row seq = row.getStruct(row.fieldIndex("_seq"));
        OrderChange change =
                OrderChange.of(
                        row.getAs(OrdersTable.ORDER_ID),
                        OrderChange.Action.valueOf(row.getAs("_op")),
                        row.getAs("_channel"),
                        seq.getLong(1));
        Map<String, String> ops = row.getJavaMap(row.fieldIndex("_column_ops"));
        ops.forEach(
                (column, op) -> {
                    if ("PUT".equals(op)) {
                        change.put(column, row.getAs(column));
                    } else {
                        change.delete(column);
                    }
                });
        return SeenChange.of(change, seq.getInt(0), seq.getLong(1), seq.getInt(2))
                .from(row.getAs("_table"));
    }

    public DeliveryLog log() {
        return log;
    }

    /** Why the query stopped, if it failed. */
    public Optional<Throwable> failure() {
        if (query.isActive()) {
            return Optional.empty();
        }
        return Optional.ofNullable(query.exception().getOrElse(() -> null));
    }

    /** Fails the test with the query's error if it failed. */
    public void requireHealthy() {
        failure()
                .ifPresent(
                        e -> {
                            throw new AssertionError("The Spark query failed: " + e, e);
                        });
    }

    /** Stops the query the way a user does; its source releases the tunnel. */
    public void stop() throws TimeoutException {
        query.stop();
    }

    @Override
    public void close() throws TimeoutException {
        stop();
    }
}
