package io.tablestorecdc.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The driver {@link CrashPointsITCase} runs in a child JVM: reads a tunnel through {@link
 * CrashingProvider} into a file sink of its own, one file per batch id, and kills itself with
 * SIGKILL at the {@link CrashPoint} it is given, on the first batch its run plans.
 *
 * <p>The sink is idempotent per batch id, as Spark's sinks are: a batch re-run after a crash finds
 * its file already written (the crash was after the sink, before the commit log) and must deliver
 * exactly the same rows; it then writes a {@code replayed-<batch>} marker, or a {@code
 * mismatch-<batch>} file and fails. Likewise the re-run of a batch killed after its fills is
 * checked against the rows its task read before the kill ({@code checked-fills-<batch>} marker).
 *
 * <p>Arguments: endpoint, instance, access key id, secret, table, tunnel, output dir, checkpoint,
 * crash point ({@link CrashPoint} name), trigger ({@code continuous} or {@code available-now}),
 * {@code max.rows.per.channel}.
 */
public final class CrashPointQuery {

    private final Path out;
    private final CrashPoint point;
    private final long lastLoggedBatch;

    private CrashPointQuery(Path out, CrashPoint point, long lastLoggedBatch) {
        this.out = out;
        this.point = point;
        this.lastLoggedBatch = lastLoggedBatch;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[6]);
        Path checkpoint = Path.of(args[7]);
        CrashPoint point = CrashPoint.valueOf(args[8]);
        CrashPoint.arm(point);
        System.setProperty("crash.dir", out.toString());
        CrashPointQuery sink =
                new CrashPointQuery(out, point, lastLoggedBatch(checkpoint).orElse(-1L));
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("crash-point-query")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
        StreamingQuery query =
                spark.readStream()
                        .format(CrashingProvider.class.getName())
                        .option("endpoint", args[0])
                        .option("instance.name", args[1])
                        .option("access.key.id", args[2])
                        .option("access.key.secret", args[3])
                        .option("table.name", args[4])
                        .option("tunnel.name", args[5])
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .option("max.rows.per.channel", args[10])
                        .option("channel.read.budget", "2s")
                        // full snapshots, deltas and purges of both in every kill loop
                        .option("meta.full.snapshot.every", "3")
                        .option("meta.retention.batches", "3")
                        .load()
                        .selectExpr("id", "_op", "_seq", "_channel")
                        .writeStream()
                        .option("checkpointLocation", checkpoint.toString())
                        .foreachBatch(
                                (VoidFunction2<Dataset<Row>, Long>)
                                        (batch, id) -> sink.write(id, batch.collectAsList()))
                        .trigger(
                                args[9].equals("available-now")
                                        ? Trigger.AvailableNow()
                                        : Trigger.ProcessingTime(100, TimeUnit.MILLISECONDS))
                        .start();
        query.awaitTermination();
        spark.stop();
    }

    /** The highest batch id in Spark's offset log: batches above it are planned by this run. */
    private static OptionalLong lastLoggedBatch(Path checkpoint) throws IOException {
        Path offsets = checkpoint.resolve("offsets");
        if (!Files.isDirectory(offsets)) {
            return OptionalLong.empty();
        }
        try (Stream<Path> files = Files.list(offsets)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.matches("\\d+"))
                    .mapToLong(Long::parseLong)
                    .max();
        }
    }

    static Path batchFile(Path out, long batchId) {
        return out.resolve(String.format("batch-%05d.txt", batchId));
    }

    private void write(long batchId, List<Row> rows) throws IOException {
        List<String> lines = rows.stream().map(CrashPointQuery::line).sorted().toList();
        Path file = batchFile(out, batchId);
        if (Files.exists(file)) {
            requireSame(Files.readAllLines(file), lines, "replayed-", batchId);
        } else {
            Path tmp = out.resolve("tmp-" + file.getFileName());
            Files.write(tmp, lines);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        Path halted = out.resolve(CrashingProvider.HALTED_ROWS);
        if (batchId == lastLoggedBatch && Files.exists(halted)) {
            requireSame(Files.readAllLines(halted), lines, "checked-fills-", batchId);
            Files.delete(halted);
        }
        if (point == CrashPoint.AFTER_SINK_COMMIT && batchId > lastLoggedBatch) {
            CrashPoint.killSelf("sink wrote batch " + batchId + "; commit log not written");
        }
    }

    /** A re-run batch must deliver what its first run delivered (invariant 1). */
    private void requireSame(List<String> before, List<String> now, String marker, long batchId)
            throws IOException {
        if (!before.equals(now)) {
            Files.write(
                    out.resolve(String.format("mismatch-%05d.txt", batchId)),
                    Stream.concat(
                                    Stream.concat(Stream.of("before:"), before.stream()),
                                    Stream.concat(Stream.of("now:"), now.stream()))
                            .toList());
            throw new IllegalStateException("Batch " + batchId + " was re-run with other rows");
        }
        Files.write(out.resolve(String.format(marker + "%05d", batchId)), List.of());
    }

    private static String line(Row row) {
        Row seq = row.getStruct(2);
        return CrashingProvider.line(
                row.getString(0),
                row.getString(1),
                seq.getInt(0),
                seq.getLong(1),
                seq.getInt(2),
                row.getString(3));
    }
}
