package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code min.rows.per.trigger} and {@code max.trigger.delay} (Kafka's {@code minOffsetsPerTrigger}
 * and {@code maxTriggerDelay}): a batch waits for enough records, at most the delay, and never for
 * news that waiting would hide.
 */
class MinRowsPerTriggerITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Triggers of 200 ms: several times the longest wait between two checks of a held batch. */
    private static final int TRIGGERS_A_BATCH_WOULD_RUN_WITHIN = 10;

    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void aBatchWaitsUntilTheMinimumHasArrivedThenReadsItInOneBatch() throws Exception {
        String table = bed.newTable();
        BatchSink sink = new BatchSink();
        StreamingQuery query = start(table, sink, "20", "1h");
        try {
            bed.awaitTriggers(query, 2, TIMEOUT);
            putRows(table, 0, 5);
            bed.awaitTriggers(query, TRIGGERS_A_BATCH_WOULD_RUN_WITHIN, TIMEOUT);
            assertThat(sink.count()).as("5 records are fewer than the minimum of 20").isZero();

            putRows(table, 5, 20);
            await(query, "the 20 records", TIMEOUT, () -> sink.count() >= 20);
            bed.awaitTriggers(query, 3, TIMEOUT);
        } finally {
            query.stop();
        }
        assertThat(nonEmptyBatchSizes(sink)).containsExactly(20);
    }

    @Test
    void theTriggerDelayReleasesABatchThatNeverReachesTheMinimum() throws Exception {
        String table = bed.newTable();
        BatchSink sink = new BatchSink();
        // The delay's clock starts when the batch of the first 5 records is planned; the 6th is
        // written once that batch is delivered. The delay leaves that much room on a slow machine:
        // a planning that first sees the 6th after the delay would not hold it.
        StreamingQuery query = start(table, sink, "5", "12s");
        try {
            putRows(table, 0, 5);
            await(query, "the first 5 records", TIMEOUT, () -> sink.count() >= 5);
            putRows(table, 5, 6);
            await(query, "the 6th record", TIMEOUT, () -> sink.count() >= 6);
            await(query, "its batch's progress", TIMEOUT, () -> loneRecordBatch(query).isPresent());
        } finally {
            query.stop();
        }
        assertThat(nonEmptyBatchSizes(sink)).containsExactly(5, 1);
        StreamingQueryProgress lone = loneRecordBatch(query).orElseThrow();
        assertThat(Long.parseLong(lone.sources()[0].metrics().get("batchHeldMillis")))
                .as("the lone record waited for company before the delay released it")
                .isPositive();
    }

    @Test
    void aChannelsEndDoesNotWaitForTheMinimum() throws Exception {
        String table = bed.newTable();
        BatchSink sink = new BatchSink();
        StreamingQuery query = start(table, sink, "1000", "1h");
        try {
            bed.awaitTriggers(query, 2, TIMEOUT);
            putRows(table, 0, 2);
            bed.awaitTriggers(query, TRIGGERS_A_BATCH_WOULD_RUN_WITHIN, TIMEOUT);
            assertThat(sink.count()).as("held: 2 records of 1000").isZero();

            bed.emulator.tunnels().split(table, CdcTestBed.key("m"));
            await(query, "the parent's records at its end", TIMEOUT, () -> sink.count() >= 2);

            putRows(table, 2, 3);
            bed.awaitTriggers(query, TRIGGERS_A_BATCH_WOULD_RUN_WITHIN, TIMEOUT);
            assertThat(sink.count()).as("a child's lone record waits again").isEqualTo(2);
        } finally {
            query.stop();
        }
    }

    @Test
    void aMinimumWithAMaximumStillCapsEveryBatchAndAvailableNowStopsWhenDone() throws Exception {
        String table = bed.newTable();
        putRows(table, 0, 25);
        BatchSink sink = new BatchSink();

        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel")
                                .option("min.rows.per.trigger", "10")
                                .option("max.rows.per.trigger", "10")
                                .load(),
                        CdcTestBed.checkpointDir(),
                        sink,
                        Trigger.AvailableNow());

        assertThat(query.awaitTermination(TIMEOUT.toMillis())).as("stopped by itself").isTrue();
        assertThat(query.exception().isDefined()).isFalse();
        assertThat(nonEmptyBatchSizes(sink)).containsExactly(10, 10, 5);
    }

    private static StreamingQuery start(
            String table, BatchSink sink, String minRows, String maxDelay) {
        Path checkpoint = CdcTestBed.checkpointDir();
        return bed.start(
                bed.reader(table, table + "_tunnel")
                        .option("min.rows.per.trigger", minRows)
                        .option("max.trigger.delay", maxDelay)
                        .load(),
                checkpoint,
                sink);
    }

    private static Optional<StreamingQueryProgress> loneRecordBatch(StreamingQuery query) {
        return Arrays.stream(query.recentProgress()).filter(p -> p.numInputRows() == 1).findFirst();
    }

    private static void putRows(String table, int from, int to) {
        for (int i = from; i < to; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
    }

    private static List<Integer> nonEmptyBatchSizes(BatchSink sink) {
        return sink.batches.values().stream().map(List::size).filter(n -> n > 0).toList();
    }
}
