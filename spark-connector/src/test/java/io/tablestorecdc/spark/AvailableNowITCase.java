package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Trigger.AvailableNow with max.rows.per.trigger (issue item 8), and the source metrics. */
class AvailableNowITCase {

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
    void drainsTheBacklogInRateLimitedBatchesThenStopsByItself() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 25; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
        Path checkpoint = CdcTestBed.checkpointDir();
        BatchSink sink = new BatchSink();

        StreamingQuery first = runAvailableNow(table, checkpoint, sink);

        assertThat(batchSizes(sink)).containsExactly(10, 10, 5);
        Map<String, String> metrics = first.lastProgress().sources()[0].metrics();
        assertThat(metrics)
                .containsEntry("channelsOpen", "1")
                .containsEntry("channelsFinished", "0");
        assertThat(metrics).containsKeys("channelsWaiting", "maxLagMillis", "sumLagMillis");

        for (int i = 25; i < 30; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
        runAvailableNow(table, checkpoint, sink);

        assertThat(batchSizes(sink)).containsExactly(10, 10, 5, 5);
        assertThat(sink.rows().stream().map(r -> r.getString(0)).toList())
                .doesNotHaveDuplicates()
                .hasSize(30);
    }

    @Test
    void aQueryWithNothingToReadStopsAfterSparksFirstBatch() throws Exception {
        String table = bed.newTable();
        BatchSink sink = new BatchSink();

        runAvailableNow(table, CdcTestBed.checkpointDir(), sink);

        // Spark always runs batch 0 of a new query (its start offset is not logged yet); it is
        // empty, and no further batch follows.
        assertThat(batchSizes(sink)).containsExactly(0);
    }

    private static StreamingQuery runAvailableNow(String table, Path checkpoint, BatchSink sink)
            throws Exception {
        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel")
                                .option("max.rows.per.trigger", "10")
                                .load(),
                        checkpoint,
                        sink,
                        Trigger.AvailableNow());
        assertThat(query.awaitTermination(60_000)).as("stopped by itself").isTrue();
        assertThat(query.exception().isDefined()).isFalse();
        return query;
    }

    static List<Integer> batchSizes(BatchSink sink) {
        return sink.batches.values().stream().map(List::size).toList();
    }
}
