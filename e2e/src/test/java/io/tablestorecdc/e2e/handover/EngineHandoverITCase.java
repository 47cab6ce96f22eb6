package io.tablestorecdc.e2e.handover;

import static io.tablestorecdc.e2e.handover.OrdersStream.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handover between engines: one engine reads part of a tunnel's stream (across a partition split)
 * and stops while changes keep coming; the other engine starts fresh on the same tunnel and meta
 * table and reads on, through a merge. Nothing may be lost, and the changes both engines delivered
 * must be exactly where the first stopped and the second resumed, bounded as docs/exactly-once.md
 * ("Handover between engines") says.
 */
class EngineHandoverITCase {

    /** Every tunnel read response carries at most this many records. */
    private static final int READ_BATCH = 40;

    private static final int BASE_ROWS = 300;
    private static final double CHANGES_PER_SECOND = 150;
    private static final Duration WRITING = Duration.ofSeconds(10);
    private static final Duration TAIL = Duration.ofSeconds(2);
    private static final Duration CATCH_UP = Duration.ofSeconds(120);

    @TempDir static Path checkpoints;
    static TablestoreEmulator emulator;
    static SparkSession spark;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        emulator.tunnels().fixReadBatchSize(READ_BATCH);
        spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("tablestore-cdc handover")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1")
                        .getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
            SparkSession.clearActiveSession();
            SparkSession.clearDefaultSession();
        }
        if (emulator != null) {
            emulator.close();
        }
    }

    @Test
    void flinkJobContinuesWhereAStoppedSparkQueryLeftOff() throws Exception {
        Phases phases = new Phases("spark -> flink");
        try (OrdersStream stream = OrdersStream.create(emulator, "spark_to_flink", BASE_ROWS)) {
            stream.startChanges(
                    CHANGES_PER_SECOND,
                    WRITING,
                    List.of(stream.splitAt(0.15), stream.mergeAt(0.8)));
            SparkCapture first = SparkCapture.start(spark, stream, checkpoints.resolve("first"));
            try {
                awaitReadsAfterTheSplit(
                        stream, first.log(), first::requireHealthy, () -> true, () -> "");
                phases.reached("spark read a child channel; stopping it");
            } finally {
                first.stop();
            }
            stream.awaitOwnerReleased(Duration.ofSeconds(30));
            phases.reached("spark stopped");
            // The first engine may have read every change written so far on a slow machine; a
            // tail written after it stopped gives the second one its part of the stream.
            stream.continueChanges(CHANGES_PER_SECOND, TAIL);

            try (FlinkCapture second = FlinkCapture.start(stream)) {
                awaitEverything(stream, first.log(), second.log(), second::requireHealthy);
                phases.reached("flink has read the rest");
                second.cancel();

                assertNothingLostNoRepeatsWithinARun(stream, first.log(), second.log());
                // Spark pushes a batch's positions to the server when it plans the next batch;
                // only its last batch can be unpushed, and batches end on response boundaries.
                long lastBatch = first.log().lastUnit().orElseThrow();
                Set<SeenChange.Key> both = both(first.log(), second.log());
                assertThat(first.log().all())
                        .filteredOn(c -> both.contains(c.key()))
                        .allSatisfy(
                                c -> assertThat(c.unit).as("batch of %s", c).isEqualTo(lastBatch));
                report("spark -> flink", first.log(), second.log(), both);
            }
        }
    }

    @Test
    void sparkQueryContinuesWhereACancelledFlinkJobLeftOff() throws Exception {
        Phases phases = new Phases("flink -> spark");
        try (OrdersStream stream = OrdersStream.create(emulator, "flink_to_spark", BASE_ROWS)) {
            stream.startChanges(
                    CHANGES_PER_SECOND,
                    WRITING,
                    List.of(stream.splitAt(0.15), stream.mergeAt(0.8)));
            FlinkCapture first = FlinkCapture.start(stream);
            try {
                // Several completed checkpoints, so that the bound below is about more than one.
                awaitReadsAfterTheSplit(
                        stream,
                        first.log(),
                        first::requireHealthy,
                        () -> first.completedCheckpoints().size() >= 3,
                        () -> "completed checkpoints: " + first.completedCheckpoints());
                phases.reached("flink read a child channel; cancelling it");
            } finally {
                first.close();
            }
            stream.awaitOwnerReleased(Duration.ofSeconds(30));
            phases.reached("flink cancelled");
            // The first engine may have read every change written so far on a slow machine; a
            // tail written after it stopped gives the second one its part of the stream.
            stream.continueChanges(CHANGES_PER_SECOND, TAIL);
            List<Long> completed = first.completedCheckpoints();

            SparkCapture second = SparkCapture.start(spark, stream, checkpoints.resolve("second"));
            try {
                awaitEverything(stream, first.log(), second.log(), second::requireHealthy);
                phases.reached("spark has read the rest");
            } finally {
                second.stop();
            }

            assertNothingLostNoRepeatsWithinARun(stream, first.log(), second.log());
            assertReadAgainAtMostOneResponseBefore(
                    completed.get(completed.size() - 2), first.log(), second.log());
            Set<SeenChange.Key> both = both(first.log(), second.log());
            report("flink -> spark", first.log(), second.log(), both);
            long last = completed.get(completed.size() - 1);
            System.out.printf(
                    "flink -> spark: read again from after checkpoint %d: %d, from checkpoint %d:"
                            + " %d, from earlier ones: %d%n",
                    last,
                    count(first.log(), both, c -> c.unit > last),
                    last,
                    count(first.log(), both, c -> c.unit == last),
                    count(first.log(), both, c -> c.unit < last));
        }
    }

    /** A Flink job of two tables takes over where a stopped Spark query of both left off. */
    @Test
    void aFlinkJobOfTwoTablesContinuesWhereAStoppedSparkQueryOfBothLeftOff() throws Exception {
        Phases phases = new Phases("spark -> flink, two tables");
        String tunnel = "two_tables_to_flink";
        try (OrdersStream a = OrdersStream.create(emulator, "to_flink_a", BASE_ROWS, tunnel);
                OrdersStream b = OrdersStream.create(emulator, "to_flink_b", BASE_ROWS, tunnel)) {
            a.startChanges(
                    CHANGES_PER_SECOND / 2, WRITING, List.of(a.splitAt(0.15), a.mergeAt(0.8)));
            b.startChanges(CHANGES_PER_SECOND / 2, WRITING, List.of(b.splitAt(0.3)));
            TunnelTarget both = a.tunnelTarget(a.table() + "," + b.table());
            SparkCapture first =
                    SparkCapture.start(spark, both, checkpoints.resolve("two-first"), Map.of());
            try {
                await(
                        () -> {
                            ((Checked) first::requireHealthy).runUnchecked();
                            return first.log().byChannel().size() >= 2;
                        },
                        CATCH_UP,
                        "spark to read a split child",
                        () -> "; channels read: " + first.log().byChannel().keySet());
                phases.reached("spark read a child channel; stopping it");
            } finally {
                first.stop();
            }
            a.awaitOwnerReleased(Duration.ofSeconds(30));
            b.awaitOwnerReleased(Duration.ofSeconds(30));
            phases.reached("spark stopped");
            a.continueChanges(CHANGES_PER_SECOND / 2, TAIL);
            b.continueChanges(CHANGES_PER_SECOND / 2, TAIL);

            try (FlinkCapture second = FlinkCapture.start(both, Optional.empty())) {
                for (OrdersStream stream : List.of(a, b)) {
                    awaitEverything(
                            stream,
                            first.log().ofTable(stream.table()),
                            () -> second.log().ofTable(stream.table()),
                            second::requireHealthy);
                }
                phases.reached("flink has read the rest of both");
                second.cancel();

                for (OrdersStream stream : List.of(a, b)) {
                    DeliveryLog spark = first.log().ofTable(stream.table());
                    DeliveryLog flink = second.log().ofTable(stream.table());
                    assertNothingLostNoRepeatsWithinARun(stream, spark, flink);
                    // Only the query's last batch can be unpushed when it stopped.
                    long lastBatch = first.log().lastUnit().orElseThrow();
                    Set<SeenChange.Key> again = both(spark, flink);
                    assertThat(spark.all())
                            .filteredOn(c -> again.contains(c.key()))
                            .allSatisfy(
                                    c ->
                                            assertThat(c.unit)
                                                    .as("batch of %s", c)
                                                    .isEqualTo(lastBatch));
                }
                report(
                        "spark -> flink, two tables",
                        first.log(),
                        second.log(),
                        both(first.log(), second.log()));
            }
        }
    }

    /**
     * The same handover with one source of two tables in each engine: each table's part of the
     * stream goes over exactly as a table read alone does, through its own split.
     */
    @Test
    void aSparkQueryOfTwoTablesContinuesWhereACancelledFlinkJobOfBothLeftOff() throws Exception {
        Phases phases = new Phases("flink -> spark, two tables");
        String tunnel = "two_tables_cdc";
        try (OrdersStream a = OrdersStream.create(emulator, "two_a", BASE_ROWS, tunnel);
                OrdersStream b = OrdersStream.create(emulator, "two_b", BASE_ROWS, tunnel)) {
            a.startChanges(CHANGES_PER_SECOND / 2, WRITING, List.of(a.splitAt(0.15)));
            b.startChanges(CHANGES_PER_SECOND / 2, WRITING, List.of(b.splitAt(0.3)));
            TunnelTarget both = a.tunnelTarget(a.table() + "," + b.table());
            FlinkCapture first = FlinkCapture.start(both, Optional.empty());
            try {
                await(
                        () -> {
                            ((Checked) first::requireHealthy).runUnchecked();
                            // a split child of either table (channel ids are each tunnel's own)
                            return first.log().byChannel().size() >= 3
                                    && first.completedCheckpoints().size() >= 3;
                        },
                        CATCH_UP,
                        "flink to read a split child and complete 3 checkpoints",
                        () -> "; channels read: " + first.log().byChannel().keySet());
                phases.reached("flink read a child channel; cancelling it");
            } finally {
                first.close();
            }
            a.awaitOwnerReleased(Duration.ofSeconds(30));
            b.awaitOwnerReleased(Duration.ofSeconds(30));
            phases.reached("flink cancelled");
            a.continueChanges(CHANGES_PER_SECOND / 2, TAIL);
            b.continueChanges(CHANGES_PER_SECOND / 2, TAIL);
            List<Long> completed = first.completedCheckpoints();

            SparkCapture second =
                    SparkCapture.start(spark, both, checkpoints.resolve("two"), Map.of());
            try {
                for (OrdersStream stream : List.of(a, b)) {
                    awaitEverything(
                            stream,
                            first.log().ofTable(stream.table()),
                            () -> second.log().ofTable(stream.table()),
                            second::requireHealthy);
                }
                phases.reached("spark has read the rest of both");
            } finally {
                second.stop();
            }

            for (OrdersStream stream : List.of(a, b)) {
                assertNothingLostNoRepeatsWithinARun(
                        stream,
                        first.log().ofTable(stream.table()),
                        second.log().ofTable(stream.table()));
            }
            assertThat(first.log().all()).noneMatch(c -> c.table.isEmpty());
            for (OrdersStream stream : List.of(a, b)) {
                assertReadAgainAtMostOneResponseBefore(
                        completed.get(completed.size() - 2),
                        first.log().ofTable(stream.table()),
                        second.log().ofTable(stream.table()));
            }
            report(
                    "flink -> spark, two tables",
                    first.log(),
                    second.log(),
                    both(first.log(), second.log()));
        }
    }

    /**
     * The server holds a token per channel (the start of a response), not a record. The job's
     * positions of the checkpoint before its last were pushed a checkpoint interval before it
     * stopped, so of the changes up to that checkpoint, per channel, at most the part of one
     * response before the checkpoint's position is read again; everything else read again came
     * after it.
     */
    private static void assertReadAgainAtMostOneResponseBefore(
            long checkpoint, DeliveryLog flink, DeliveryLog spark) {
        for (String channel : flink.byChannel().keySet()) {
            assertThat(ResumePoints.overlap(flink, spark, channel))
                    .as("changes of %s up to checkpoint %d read again", channel, checkpoint)
                    .filteredOn(c -> c.unit <= checkpoint)
                    .hasSizeLessThan(READ_BATCH);
        }
    }

    /**
     * Waits until the first consumer has read a channel other than the first (a split child) and
     * {@code alsoWhen} holds.
     */
    private static void awaitReadsAfterTheSplit(
            OrdersStream stream,
            DeliveryLog log,
            Checked healthy,
            BooleanSupplier alsoWhen,
            Supplier<String> consumerState) {
        await(
                () -> {
                    healthy.runUnchecked();
                    return log.byChannel().size() >= 2 && alsoWhen.getAsBoolean();
                },
                CATCH_UP,
                log.engine() + " to read a child channel after the split",
                () ->
                        "; channels read: "
                                + log.byChannel().keySet()
                                + ", "
                                + consumerState.get()
                                + "; server: "
                                + stream.serverChannels());
    }

    private static void awaitEverything(
            OrdersStream stream, DeliveryLog first, DeliveryLog second, Checked healthy) {
        awaitEverything(stream, first, () -> second, healthy);
    }

    /** As above, with the second log as it stands at each check. */
    private static void awaitEverything(
            OrdersStream stream, DeliveryLog first, Supplier<DeliveryLog> second, Checked healthy) {
        stream.awaitChangesWritten();
        await(
                () -> {
                    healthy.runUnchecked();
                    Set<SeenChange.Key> seen = new HashSet<>(first.keys());
                    seen.addAll(second.get().keys());
                    return seen.size() >= stream.expectedChanges();
                },
                CATCH_UP,
                "all " + stream.expectedChanges() + " changes across both engines");
    }

    private static void assertNothingLostNoRepeatsWithinARun(
            OrdersStream stream, DeliveryLog first, DeliveryLog second) {
        assertThat(first.repeated()).as("changes %s delivered twice", first.engine()).isEmpty();
        assertThat(second.repeated()).as("changes %s delivered twice", second.engine()).isEmpty();
        Set<SeenChange.Key> seen = new HashSet<>(first.keys());
        seen.addAll(second.keys());
        assertThat(seen).as("distinct changes delivered").hasSize((int) stream.expectedChanges());
        assertThat(second.size()).as("changes the second engine delivered").isPositive();
        assertThat(ResumePoints.violations(first, second)).isEmpty();
        List<SeenChange> all = new ArrayList<>(first.all());
        all.addAll(second.all());
        TableDiff diff = stream.replicate(stream.table() + "_replica", all);
        assertThat(diff.differences()).as("replica vs source").isEmpty();
    }

    private static long count(
            DeliveryLog log, Set<SeenChange.Key> keys, Predicate<SeenChange> test) {
        return log.all().stream().filter(c -> keys.contains(c.key())).filter(test).count();
    }

    private static Set<SeenChange.Key> both(DeliveryLog first, DeliveryLog second) {
        Set<SeenChange.Key> both = new HashSet<>(first.keys());
        both.retainAll(second.keys());
        return both;
    }

    private static void report(
            String direction, DeliveryLog first, DeliveryLog second, Set<SeenChange.Key> both) {
        System.out.printf(
                "%s: %d changes by the first engine, %d by the second, %d by both%n",
                direction, first.size(), second.size(), both.size());
    }

    /** A health check that may throw a checked exception. */
    @FunctionalInterface
    interface Checked {
        void run() throws Exception;

        default void runUnchecked() {
            try {
                run();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
