package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.time.Duration;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code server.progress.interval}: positions of committed batches reach the tunnel server at most
 * once per interval, the newest always (within the interval, and at once when the query stops), and
 * a batch that finishes a channel reaches it at once, so that its children open.
 */
class ServerProgressIntervalITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

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
    void laterBatchesWaitForTheIntervalAndStoppingPushesTheNewest() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        BatchSink sink = new BatchSink();
        StreamingQuery query = start(table, sink, "1h");
        long pushedBefore;
        try {
            bed.put(table, "k00", 0, "n");
            await(query, "the first record", TIMEOUT, () -> sink.count() >= 1);
            // The first committed batch is pushed without waiting: the interval counts from it.
            await(
                    query,
                    "the first batch's push",
                    TIMEOUT,
                    () -> bed.serverConsumedCount(table, tunnel) >= 1);
            for (int i = 1; i < 5; i++) {
                bed.put(table, String.format("k%02d", i), i, "n");
                int expected = i + 1;
                await(query, "record " + expected, TIMEOUT, () -> sink.count() >= expected);
            }
            bed.awaitTriggers(query, 3, TIMEOUT);
            assertThat(nonEmptyBatches(sink)).as("one batch per record").isEqualTo(5);
            assertThat(bed.serverConsumedCount(table, tunnel))
                    .as("the later batches wait for the interval")
                    .isEqualTo(1);
            pushedBefore = bed.emulator.server().requestCount("tunnel/checkpoint");
        } finally {
            query.stop();
        }
        assertThat(bed.serverConsumedCount(table, tunnel))
                .as("stopping pushes the newest committed batch")
                .isEqualTo(5);
        assertThat(bed.emulator.server().requestCount("tunnel/checkpoint") - pushedBefore)
                .as("one push of the one channel, not one per batch")
                .isEqualTo(1);
    }

    @Test
    void everyBatchIsPushedWithAZeroInterval() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        BatchSink sink = new BatchSink();
        StreamingQuery query = start(table, sink, "0s");
        try {
            for (int i = 0; i < 3; i++) {
                bed.put(table, String.format("k%02d", i), i, "n");
                long expected = i + 1;
                await(query, "record " + expected, TIMEOUT, () -> sink.count() >= expected);
                await(
                        query,
                        "the push of record " + expected,
                        TIMEOUT,
                        () -> bed.serverConsumedCount(table, tunnel) >= expected);
            }
        } finally {
            query.stop();
        }
    }

    @Test
    void aBatchThatFinishesAChannelIsPushedAtOnceAndItsChildrenOpen() throws Exception {
        String table = bed.newTable();
        BatchSink sink = new BatchSink();
        StreamingQuery query = start(table, sink, "1h");
        try {
            bed.put(table, "a", 1, "n");
            await(query, "the parent's record", TIMEOUT, () -> sink.count() >= 1);
            bed.emulator.tunnels().split(table, CdcTestBed.key("m"));
            bed.put(table, "b", 2, "n");
            bed.put(table, "z", 3, "n");
            // Children open only once the server holds the parent finished: a finish waiting for
            // the hour would hold these records back.
            await(query, "both children's records", TIMEOUT, () -> sink.count() >= 3);
        } finally {
            query.stop();
        }
        assertThat(sink.rows()).hasSize(3);
    }

    private static StreamingQuery start(String table, BatchSink sink, String interval) {
        return bed.start(
                bed.reader(table, table + "_tunnel")
                        .option("server.progress.interval", interval)
                        .load(),
                CdcTestBed.checkpointDir(),
                sink);
    }

    private static long nonEmptyBatches(BatchSink sink) {
        return sink.batches.values().stream().filter(rows -> !rows.isEmpty()).count();
    }
}
