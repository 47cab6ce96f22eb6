package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.tunnel.TunnelRetryPolicy;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Injected server errors (issue item 9). */
class FaultsITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @AfterEach
    void clearFaults() {
        bed.emulator.faults().clear();
    }

    /**
     * The next {@code count} calls of {@code api} answer OTSServerBusy. Fewer than the retry
     * policy's attempts, so however they fall on calls, every call gets through: the test cannot
     * fail by chance, and the rule's use proves the faults happened.
     */
    static Faults.Rule busy(String api, long count) {
        return Faults.Rule.error(api, "OTSServerBusy", 503, count);
    }

    @Test
    void serverBusyOnReadsAndHeartbeatsIsRetriedAndLosesNothing() throws Exception {
        long burst = TunnelRetryPolicy.DEFAULT.maxAttempts() - 1;
        String table = bed.newTable();
        bed.put(table, "k00", 0, "n");
        BatchSink sink = new BatchSink();
        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel")
                                .option("max.rows.per.channel", "6")
                                .load(),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            await(query, "first row", TIMEOUT, () -> sink.count() >= 1);
            for (int round = 0; round < 2; round++) {
                bed.emulator.faults().add(busy("tunnel/readrecords", burst));
                bed.emulator.faults().add(busy("tunnel/heartbeat", burst));
                int from = 1 + round * 20;
                for (int i = from; i < from + 20 && i < 40; i++) {
                    bed.put(table, String.format("k%02d", i), i, "n");
                }
                int expected = Math.min(40, from + 20);
                await(query, expected + " rows", TIMEOUT, () -> sink.count() >= expected);
                await(
                        query,
                        "every injected fault to be hit",
                        TIMEOUT,
                        () -> bed.emulator.faults().exhausted());
                bed.emulator.faults().clear();
            }
            bed.awaitTriggers(query, 3, TIMEOUT); // a duplicate would arrive in these batches
        } finally {
            query.stop();
        }

        List<String> ids = sink.rows().stream().map(r -> r.getString(0)).toList();
        assertThat(ids)
                .containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, 40)
                                .mapToObj(i -> String.format("k%02d", i))
                                .toList());
    }

    @Test
    void anExpiredTunnelStopsTheQueryNamingTheTunnel() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        bed.put(table, "a", 1, "n");
        BatchSink sink = new BatchSink();
        StreamingQuery query =
                bed.start(bed.reader(table, tunnel).load(), CdcTestBed.checkpointDir(), sink);
        await(query, "first row", TIMEOUT, () -> sink.count() >= 1);

        bed.emulator.tunnels().expireTunnel(tunnel);
        CdcTestBed.awaitCondition("the query to fail", TIMEOUT, () -> !query.isActive());

        assertThat(query.exception().get())
                .hasStackTraceContaining("OTSTunnelExpired")
                .hasStackTraceContaining("tablestore-cdc source on tunnel '" + tunnel + "'");
    }
}
