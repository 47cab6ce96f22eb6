package io.tablestorecdc.e2e.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.tablestorecdc.e2e.Console;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.EngineStats;
import io.tablestorecdc.e2e.ProgressLine;
import io.tablestorecdc.e2e.Replication;
import io.tablestorecdc.e2e.orders.OrdersTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A Spark Structured Streaming query from {@code format("tablestore-cdc")} to {@code
 * writeStream.format("tablestore")}: the product's own sink keeps the replica table, applying each
 * change as what it was (puts, partial updates with column deletes, deletes). With several source
 * tables, one query reads them all and each batch writes each table's rows ({@code _table}) to its
 * replica with the batch {@code write.format("tablestore")}.
 */
public final class SparkReplication implements Replication {

    private static final String APPLIED = "applied";

    private final DemoTarget target;
    private final Map<String, String> selection;
    private final String tunnel;
    private final Map<String, String> replicas;
    private final long baseTotal;
    private final Console console;
    private final EngineStats stats;

    private SparkSession spark;
    private StreamingQuery query;
    private Path checkpoint;

    /**
     * @param selection the source's {@code table.name} or {@code table.pattern} option
     * @param replicas each source table's replica
     */
    public SparkReplication(
            DemoTarget target,
            Map<String, String> selection,
            String tunnel,
            Map<String, String> replicas,
            long baseTotal,
            Console console) {
        this.target = target;
        this.selection = Map.copyOf(selection);
        this.tunnel = tunnel;
        this.replicas = new LinkedHashMap<>(replicas);
        this.baseTotal = baseTotal;
        this.console = console;
        this.stats = new EngineStats(baseTotal);
    }

    @Override
    public String engine() {
        return "spark";
    }

    @Override
    public String replicaTable() {
        return replicas.values().iterator().next();
    }

    @Override
    public String replicaOf(String table) {
        return replicas.get(table);
    }

    @Override
    public EngineStats stats() {
        return stats;
    }

    @Override
    public void start() throws IOException, TimeoutException {
        stats.recordStart();
        checkpoint = Files.createTempDirectory("tablestore-cdc-demo-spark");
        spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc-demo")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
        spark.streams().addListener(new ProgressPrinter());
        if (replicas.size() == 1) {
            query =
                    counted(changes())
                            .writeStream()
                            .format("tablestore")
                            .queryName("orders-replica")
                            .trigger(Trigger.ProcessingTime(500))
                            .option("checkpointLocation", checkpoint.toString())
                            .options(connection())
                            .option("table.name", replicaTable())
                            .start();
            return;
        }
        query =
                changes()
                        .writeStream()
                        .queryName("orders-replicas")
                        .trigger(Trigger.ProcessingTime(500))
                        .option("checkpointLocation", checkpoint.toString())
                        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) this::writeEach)
                        .start();
    }

    /**
     * One batch of several tables' changes: each table's rows to its replica (a key's changes stay
     * in their partition, in order; a replayed batch writes the same changes again).
     */
    private void writeEach(Dataset<Row> batch, long batchId) {
        Dataset<Row> changes = batch.persist();
        try {
            Row counts =
                    changes.agg(
                                    count(lit(1)).as("rows"),
                                    count(when(col("_commit_ts").isNull(), lit(1))).as("base"))
                            .first();
            stats.recordApplied(counts.getLong(0), counts.getLong(1));
            for (Map.Entry<String, String> replica : replicas.entrySet()) {
                changes.filter(col("_table").equalTo(replica.getKey()))
                        .write()
                        .format("tablestore")
                        .options(connection())
                        .option("table.name", replica.getValue())
                        .mode("append")
                        .save();
            }
        } finally {
            changes.unpersist();
        }
    }

    /**
     * The changes, with each batch's row count and base-data row count observed for the console
     * (Spark reports them in the batch's progress event as {@code applied}).
     */
    private static Dataset<Row> counted(Dataset<Row> changes) {
        return changes.observe(
                APPLIED,
                count(lit(1)).as("rows"),
                count(when(col("_commit_ts").isNull(), lit(1))).as("base"));
    }

    private Map<String, String> connection() {
        return Map.of(
                "endpoint", target.endpoint(),
                "instance.name", target.instanceName(),
                "access.key.id", target.accessKeyId(),
                "access.key.secret", target.accessKeySecret());
    }

    private Dataset<Row> changes() {
        return spark.readStream()
                .format("tablestore-cdc")
                .options(connection())
                .options(selection)
                .option("tunnel.name", tunnel)
                .option("max.rows.per.trigger", "500")
                .option("channel.read.budget", "2s")
                .schema(OrdersTable.SPARK_SCHEMA)
                .load();
    }

    @Override
    public Optional<Throwable> failure() {
        if (query == null || query.isActive()) {
            return Optional.empty();
        }
        return Optional.ofNullable(query.exception().getOrElse(() -> null));
    }

    @Override
    public void close() {
        try {
            if (query != null) {
                query.stop();
            }
        } catch (TimeoutException e) {
            console.say("spark", "the query did not stop in time: " + e.getMessage());
        } finally {
            if (spark != null) {
                spark.stop();
            }
            deleteQuietly(checkpoint);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temp directory; the OS cleans it up eventually
        }
    }

    /** Prints one line per batch that carried data, from the query's progress events. */
    private final class ProgressPrinter extends StreamingQueryListener {

        @Override
        public void onQueryProgress(QueryProgressEvent event) {
            StreamingQueryProgress progress = event.progress();
            if (progress.numInputRows() == 0 || progress.sources().length == 0) {
                return;
            }
            Row applied = progress.observedMetrics().get(APPLIED);
            if (applied != null) {
                stats.recordApplied(
                        applied.getLong(applied.fieldIndex("rows")),
                        applied.getLong(applied.fieldIndex("base")));
            }
            stats.recordUnit();
            Map<String, String> metrics = progress.sources()[0].metrics();
            Optional<Long> lag = number(metrics, "maxLagMillis");
            lag.ifPresent(stats::recordLag);
            ProgressLine line =
                    new ProgressLine(
                            "batch",
                            progress.batchId(),
                            progress.numInputRows(),
                            stats.changes(),
                            channels(metrics),
                            lag,
                            stats.baseRows(),
                            baseTotal);
            console.say("spark", line.format());
        }

        private Optional<ProgressLine.Channels> channels(Map<String, String> metrics) {
            Optional<Long> open = number(metrics, "channelsOpen");
            Optional<Long> waiting = number(metrics, "channelsWaiting");
            Optional<Long> finished = number(metrics, "channelsFinished");
            if (open.isEmpty() || waiting.isEmpty() || finished.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(
                    new ProgressLine.Channels(open.get(), waiting.get(), finished.get()));
        }

        private Optional<Long> number(Map<String, String> metrics, String key) {
            try {
                return Optional.ofNullable(metrics.get(key)).map(Long::parseLong);
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        @Override
        public void onQueryStarted(QueryStartedEvent event) {}

        @Override
        public void onQueryTerminated(QueryTerminatedEvent event) {}
    }
}
