package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.emulator.testkit.LogCapture;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One query per tunnel (issue item 10): a second query is refused, a query that lost its lease
 * stops; and the access key secret nowhere (item 11).
 */
class OwnershipAndSecretsITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static CdcTestBed bed;
    static LogCapture logs;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
        logs = LogCapture.start(Map.of("", Level.DEBUG)); // every logger at DEBUG
    }

    @AfterAll
    static void stop() {
        logs.close();
        bed.close();
    }

    @Test
    void secondQueryOnTheSameTunnelIsRefusedAndTheSecretAppearsNowhere() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        bed.put(table, "a", 1, "apple");
        BatchSink firstSink = new BatchSink();
        Dataset<Row> df = bed.reader(table, tunnel).load();
        StreamingQuery first = bed.start(df, CdcTestBed.checkpointDir(), firstSink);
        await(first, "first row", TIMEOUT, () -> firstSink.count() >= 1);

        StreamingQuery second =
                bed.start(
                        bed.reader(table, tunnel).load(),
                        CdcTestBed.checkpointDir(),
                        new BatchSink());
        Throwable refused = awaitFailure(second);
        String explain = explainInternal(first);
        String progress = first.lastProgress().json() + first.status().json();
        first.stop();

        assertThat(refused)
                .hasStackTraceContaining("is owned by consumer")
                .hasStackTraceContaining("Only one Spark query or Flink job may read a tunnel")
                .hasStackTraceContaining(
                        "bin/tablestore-cdc lease release --table "
                                + table
                                + " --tunnel "
                                + tunnel
                                + " --consumer ");
        assertThat(explain).contains("TablestoreCdcScan").doesNotContain(CdcTestBed.SECRET);
        assertThat(progress)
                .contains("TablestoreMicroBatchStream")
                .doesNotContain(CdcTestBed.SECRET);
        assertThat(stackTrace(refused)).doesNotContain(CdcTestBed.SECRET);
        assertThat(df.queryExecution().toString()).doesNotContain(CdcTestBed.SECRET);
        assertThat(logs.text()).contains("tablestore-cdc source").doesNotContain(CdcTestBed.SECRET);
    }

    @Test
    void aNewQueryTakesOverWhereTheStoppedOneLeftOff() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        bed.put(table, "a", 1, "apple");
        BatchSink firstSink = new BatchSink();
        StreamingQuery first =
                bed.start(bed.reader(table, tunnel).load(), CdcTestBed.checkpointDir(), firstSink);
        await(first, "first row", TIMEOUT, () -> firstSink.count() >= 1);
        // The batch's commit pushes its position to the server, where the next consumer starts.
        await(
                first,
                "the position pushed",
                TIMEOUT,
                () -> bed.serverConsumedCount(table, tunnel) >= 1);
        first.stop();
        bed.put(table, "b", 2, "berry");

        BatchSink secondSink = new BatchSink();
        Path newCheckpoint = CdcTestBed.checkpointDir();
        StreamingQuery second =
                bed.start(bed.reader(table, tunnel).load(), newCheckpoint, secondSink);
        try {
            await(second, "second row", TIMEOUT, () -> secondSink.count() >= 1);
            bed.awaitTriggers(second, 5, TIMEOUT); // "a" would arrive in these batches
        } finally {
            second.stop();
        }

        List<String> ids = secondSink.rows().stream().map(r -> r.getString(0)).toList();
        assertThat(ids).containsExactly("b");
    }

    /**
     * Another consumer takes the tunnel over, as it may once the running query's lease has expired
     * (the running query stalled): the running query stops at its next batch, naming the tunnel and
     * what to do, and writes nothing more to the meta table.
     */
    @Test
    void aQueryWhoseLeaseWasTakenOverStopsBeforeWritingAnotherBatch() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        bed.put(table, "a", 1, "apple");
        BatchSink sink = new BatchSink();
        StreamingQuery first =
                bed.start(bed.reader(table, tunnel).load(), CdcTestBed.checkpointDir(), sink);
        await(first, "first row", TIMEOUT, () -> sink.count() >= 1);
        String tunnelId = bed.tunnelId(table, tunnel);
        // Three minutes ahead, the running query's two-minute lease has expired.
        Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(3));
        OwnerLease takenOver =
                bed.withMetaTable(
                        later,
                        meta ->
                                meta.tunnel(tunnelId)
                                        .acquireOwnership(
                                                "other-query", OwnerLeaseKeeper.LEASE.toMillis()));
        List<LoggedBatch> logBefore =
                bed.withMetaTable(Clock.systemUTC(), meta -> meta.tunnel(tunnelId).batchLog());

        bed.put(table, "b", 2, "berry");
        Throwable stopped = awaitFailure(first);

        assertThat(stopped)
                .hasStackTraceContaining("tunnel '" + tunnel + "' of table '" + table + "'")
                .hasStackTraceContaining("lost its owner lease")
                .hasStackTraceContaining("consumer 'other-query' holds it now")
                .hasStackTraceContaining("restart this query from its checkpoint location");
        assertThat(sink.rows().stream().map(r -> r.getString(0)).toList()).containsExactly("a");
        bed.withMetaTable(
                Clock.systemUTC(),
                meta -> {
                    assertThat(meta.tunnel(tunnelId).batchLog()).isEqualTo(logBefore);
                    assertThat(meta.tunnel(tunnelId).owner()).contains(takenOver);
                    return null;
                });
    }

    static Throwable awaitFailure(StreamingQuery query) {
        CdcTestBed.awaitCondition("the query to fail", TIMEOUT, () -> !query.isActive());
        assertThat(query.exception().isDefined()).as("query failed").isTrue();
        return query.exception().get();
    }

    /**
     * The query's extended plan, as the Spark UI shows it. Spark 4 moved the wrapper class to
     * another package ({@code ...streaming.runtime}); both lines keep its methods, which this calls
     * by name so the one source compiles against either.
     */
    static String explainInternal(StreamingQuery query) throws ReflectiveOperationException {
        Object execution = query.getClass().getMethod("streamingQuery").invoke(query);
        return (String)
                execution
                        .getClass()
                        .getMethod("explainInternal", boolean.class)
                        .invoke(execution, true);
    }

    static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
