package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A partition split and a merge while the query runs (issue item 6), with channels grouped into
 * shared tasks.
 */
class SplitMergeITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(45);
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
    void childrenAreReadAfterTheirParentsAndPerKeyOrderHolds() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 1, "gen0");
        bed.put(table, "x", 1, "gen0");
        BatchSink sink = new BatchSink();
        StructType attributes =
                new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel")
                                // the two children are read by one task, one after the other
                                .option("max.channels.per.partition", "4")
                                .schema(attributes)
                                .load(),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            await(query, "generation 0", TIMEOUT, () -> sink.count() >= 2);
            List<String> children = bed.emulator.tunnels().split(table, CdcTestBed.key("m"));
            bed.put(table, "a", 2, "gen1");
            bed.put(table, "x", 2, "gen1");
            bed.put(table, "b", 2, "gen1");
            await(query, "generation 1", TIMEOUT, () -> sink.count() >= 5);
            String merged = bed.emulator.tunnels().merge(table, CdcTestBed.key("m"));
            bed.put(table, "a", 3, "gen2");
            bed.put(table, "x", 3, "gen2");
            await(query, "generation 2", TIMEOUT, () -> sink.count() >= 7);
            bed.awaitTriggers(query, 5, TIMEOUT); // a duplicate would arrive in these batches

            assertThat(children).hasSize(2);
            Map<String, long[]> batches = batchRangeByChannel(sink);
            assertThat(batches.keySet())
                    .containsExactlyInAnyOrder("p-0", children.get(0), children.get(1), merged);
            for (String child : children) {
                assertThat(batches.get(child)[0]).isGreaterThan(batches.get("p-0")[1]);
                assertThat(batches.get(merged)[0]).isGreaterThan(batches.get(child)[1]);
            }
        } finally {
            query.stop();
        }
        assertThat(qtysOf(sink, "a")).containsExactly(1L, 2L, 3L);
        assertThat(qtysOf(sink, "x")).containsExactly(1L, 2L, 3L);
        assertThat(qtysOf(sink, "b")).containsExactly(2L);
        assertThat(sink.count()).isEqualTo(7);
    }

    /** Channel to {first batch, last batch} holding its records. */
    static Map<String, long[]> batchRangeByChannel(BatchSink sink) {
        Map<String, long[]> out = new TreeMap<>();
        sink.batches.forEach(
                (batch, rows) ->
                        rows.forEach(
                                r -> {
                                    String channel = r.getString(r.fieldIndex("_channel"));
                                    long[] range =
                                            out.computeIfAbsent(
                                                    channel, c -> new long[] {batch, batch});
                                    range[0] = Math.min(range[0], batch);
                                    range[1] = Math.max(range[1], batch);
                                }));
        return out;
    }

    static List<Long> qtysOf(BatchSink sink, String id) {
        List<Long> out = new ArrayList<>();
        for (Row r : sink.rows()) {
            if (r.getString(r.fieldIndex("id")).equals(id)) {
                out.add(r.getLong(r.fieldIndex("qty")));
            }
        }
        return out;
    }
}
