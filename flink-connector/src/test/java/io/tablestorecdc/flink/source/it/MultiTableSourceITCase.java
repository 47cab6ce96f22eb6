package io.tablestorecdc.flink.source.it;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import io.tablestorecdc.flink.testing.CommittingListSink;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One source reading several tables in a MiniCluster against the emulator: each table through its
 * own tunnel of the same name, every record naming its table, exactly once per table across splits,
 * a savepoint restore at another parallelism, a table created while the job runs, and a table
 * dropped while it runs.
 */
class MultiTableSourceITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String META_TABLE = "flink_multi_meta";
    private static final AtomicInteger COUNTER = new AtomicInteger();

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private final List<JobClient> jobs = new ArrayList<>();
    private final String tunnel = "multi-" + COUNTER.incrementAndGet();

    @AfterEach
    void cancelJobs() {
        jobs.forEach(FlinkJobs::cancelAndAwaitEnd);
    }

    @Test
    void aListOfTablesIsReadExactlyOnceEachRecordNamingItsTableAcrossASplit() throws Exception {
        String orders = tableWithTunnel("orders_");
        String users = tableWithTunnel("users_");
        String sink = "list-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2, b -> b.setTableNames(orders, users)));
        List<String> written = new ArrayList<>();

        writeRound(orders, 1, written);
        writeRound(users, 1, written);
        awaitCommitted(sink, written.size());
        bed.emulator().tunnels().split(orders, key("m"));
        writeRound(orders, 2, written);
        writeRound(users, 2, written);
        awaitCommitted(sink, written.size());

        assertCommittedExactlyOnce(sink, written);

        // Each table's catch-up report is kept, written together with the other tables': it
        // lists the table's channels read to their end.
        try (SdkMetaTableClient client =
                SdkMetaTableClient.connect(
                        new TablestoreEndpoint(
                                bed.emulator().endpoint(),
                                bed.emulator().instanceName(),
                                TablestoreCredentials.of(
                                        bed.emulator().accessKeyId(),
                                        bed.emulator().accessKeySecret())),
                        META_TABLE)) {
            MetaTable meta = new MetaTable(client);
            for (String table : List.of(orders, users)) {
                TunnelMeta rows =
                        meta.tunnel(
                                bed.describeTunnel(table, tunnel).getTunnelInfo().getTunnelId());
                Await.until(
                        "a catch-up report of " + table + " listing its channels",
                        TIMEOUT,
                        () -> {
                            requireNoJobFailed();
                            return rows.progress().map(p -> !p.caughtUp().isEmpty()).orElse(false);
                        });
            }
        }
    }

    @Test
    void aSavepointOfSeveralTablesRestoresEachAtAnotherParallelism(@TempDir Path savepoints)
            throws Exception {
        String orders = tableWithTunnel("orders_");
        String users = tableWithTunnel("users_");
        String sink = "savepoint-" + COUNTER.incrementAndGet();
        UnaryOperator<TablestoreCdcSourceBuilder<String>> both =
                b -> b.setTableNames(orders, users);
        JobClient first = run(sink, new Configuration(), 2, both);
        List<String> written = new ArrayList<>();
        writeRound(orders, 1, written);
        writeRound(users, 1, written);
        awaitCommitted(sink, written.size());

        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        writeRound(orders, 2, written); // while no job runs
        bed.emulator().tunnels().split(users, key("m"));
        writeRound(users, 2, written);
        Configuration restore = new Configuration();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        jobs.add(run(sink, restore, 1, both));
        writeRound(orders, 3, written);
        awaitCommitted(sink, written.size());

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void aPatternReadsATableCreatedWhileRunningFromItsFirstChangeAndOutlivesADroppedOne()
            throws Exception {
        String prefix = "pat" + COUNTER.incrementAndGet() + "_";
        String first = bed.newTable(prefix);
        String gone = bed.newTable(prefix);
        bed.newTable("other" + prefix); // not matched: never read
        String sink = "pattern-" + COUNTER.incrementAndGet();
        jobs.add(
                run(
                        sink,
                        new Configuration(),
                        2,
                        b ->
                                b.setTablePattern(prefix + "\\d+")
                                        .setTableDiscoveryInterval(Duration.ofMillis(300))
                                        .setTunnelCreation(TunnelCreation.STREAM)));
        awaitTunnel(first);
        awaitTunnel(gone);
        List<String> written = new ArrayList<>();
        writeRound(first, 1, written);
        writeRound(gone, 1, written);
        awaitCommitted(sink, written.size());

        // Written before the source can have found the table: read from its first change.
        String created = bed.newTable(prefix);
        writeRound(created, 1, written);
        bed.sync().deleteTable(new DeleteTableRequest(gone));
        writeRound(first, 2, written);
        awaitCommitted(sink, written.size());
        writeRound(created, 2, written);
        awaitCommitted(sink, written.size());

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void withOnDroppedTableFailADroppedTableFailsTheJobNamingIt() throws Exception {
        String prefix = "strict" + COUNTER.incrementAndGet() + "_";
        String kept = bed.newTable(prefix);
        String gone = bed.newTable(prefix);
        String sink = "strict-" + COUNTER.incrementAndGet();
        JobClient job =
                run(
                        sink,
                        new Configuration(),
                        2,
                        b ->
                                b.setTablePattern(prefix + "\\d+")
                                        .setTableDiscoveryInterval(Duration.ofMillis(300))
                                        .setOnDroppedTable(DroppedTablePolicy.FAIL)
                                        .setTunnelCreation(TunnelCreation.STREAM));
        awaitTunnel(kept);
        awaitTunnel(gone);
        List<String> written = new ArrayList<>();
        writeRound(kept, 1, written);
        writeRound(gone, 1, written);
        awaitCommitted(sink, written.size());

        bed.sync().deleteTable(new DeleteTableRequest(gone));
        Throwable failed = job.getJobExecutionResult().handle((r, e) -> e).join();

        assertThat(ExceptionUtils.stringifyException(failed))
                .contains("Table '" + gone + "'")
                .contains("is gone (dropped)")
                .contains("on.dropped.table=skip");
    }

    @Test
    void aTableCreatedWhileNoJobRanIsReadFromItsFirstChangeOnRestore(@TempDir Path savepoints)
            throws Exception {
        String prefix = "down" + COUNTER.incrementAndGet() + "_";
        String first = bed.newTable(prefix);
        String sink = "down-" + COUNTER.incrementAndGet();
        UnaryOperator<TablestoreCdcSourceBuilder<String>> pattern =
                b ->
                        b.setTablePattern(prefix + "\\d+")
                                .setTableDiscoveryInterval(Duration.ZERO) // listed at start only
                                .setTunnelCreation(TunnelCreation.STREAM);
        JobClient job = run(sink, new Configuration(), 2, pattern);
        awaitTunnel(first);
        List<String> written = new ArrayList<>();
        writeRound(first, 1, written);
        awaitCommitted(sink, written.size());
        String savepoint =
                job.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();

        String created = bed.newTable(prefix); // while no job runs, written before its tunnel
        writeRound(created, 1, written);
        Configuration restore = new Configuration();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        jobs.add(run(sink, restore, 2, pattern));
        awaitTunnel(created);
        writeRound(first, 2, written);
        awaitCommitted(sink, written.size());

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void aSecondSourceOnOneOfTheTablesIsRefusedNamingItWhileTheFirstKeepsReadingBoth()
            throws Exception {
        String orders = tableWithTunnel("orders_");
        String users = tableWithTunnel("users_");
        String sink = "owner-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2, b -> b.setTableNames(orders, users)));
        List<String> written = new ArrayList<>();
        writeRound(orders, 1, written);
        writeRound(users, 1, written);
        awaitCommitted(sink, written.size());

        JobClient second =
                run(
                        "owner-second-" + COUNTER.incrementAndGet(),
                        new Configuration(),
                        1,
                        b -> b.setTableNames(users));
        Throwable refused = second.getJobExecutionResult().handle((r, e) -> e).join();

        assertThat(ExceptionUtils.stringifyException(refused))
                .contains("OwnershipConflictException")
                .contains(users)
                .contains("Only one Spark query or Flink job may read a tunnel");
        writeRound(users, 2, written);
        writeRound(orders, 2, written);
        awaitCommitted(sink, written.size());
        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void aRunRestoredFromTheSameSavepointTakesEveryTableOverAndTheEarlierStopsForGood(
            @TempDir Path savepoints) throws Exception {
        String orders = tableWithTunnel("orders_");
        String users = tableWithTunnel("users_");
        UnaryOperator<TablestoreCdcSourceBuilder<String>> both =
                b -> b.setTableNames(orders, users);
        Configuration restarts = new Configuration();
        restarts.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        restarts.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        String earlierSink = "earlier-" + COUNTER.incrementAndGet();
        JobClient earlier = run(earlierSink, restarts, 1, both);
        List<String> written = new ArrayList<>();
        writeRound(orders, 1, written);
        writeRound(users, 1, written);
        awaitCommitted(earlierSink, written.size());
        String savepoint =
                earlier.triggerSavepoint(
                                savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();

        Configuration restore = new Configuration();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        String laterSink = "later-" + COUNTER.incrementAndGet();
        jobs.add(run(laterSink, restore, 1, both));
        Throwable stopped = earlier.getJobExecutionResult().handle((r, e) -> e).join();
        List<String> later = new ArrayList<>();
        writeRound(orders, 2, later);
        writeRound(users, 2, later);
        awaitCommitted(laterSink, later.size());

        assertThat(ExceptionUtils.stringifyException(stopped))
                .as("the earlier run fails, restarts suppressed, on its lost leases")
                .contains("OwnershipLostException")
                .contains("lost its owner lease");
        assertThat(earlier.getJobStatus().join()).isEqualTo(JobStatus.FAILED);
        assertThat(CommittingListSink.committed(earlierSink)).doesNotContainAnyElementsOf(later);
        assertCommittedExactlyOnce(laterSink, later);
    }

    // ---- job ----

    private JobClient run(
            String sink,
            Configuration conf,
            int parallelism,
            UnaryOperator<TablestoreCdcSourceBuilder<String>> tables)
            throws Exception {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        config.addAll(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        TablestoreCdcSource<String> source =
                tables.apply(
                                TablestoreCdcSource.<String>builder()
                                        .setEndpoint(bed.emulator().endpoint())
                                        .setInstanceName(bed.emulator().instanceName())
                                        .setCredentials(
                                                bed.emulator().accessKeyId(),
                                                bed.emulator().accessKeySecret())
                                        .setTunnelName(tunnel)
                                        .setDiscoveryInterval(Duration.ofMillis(200))
                                        .setMetaTable(META_TABLE)
                                        .setDeserializer(new TableRecordStrings()))
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "tablestore-cdc")
                .uid("source")
                .sinkTo(new CommittingListSink(sink))
                .uid("sink")
                .setParallelism(1);
        return env.executeAsync("tablestore-cdc " + sink);
    }

    /** Renders a change as {@code <table>: PUT id='a' v=1}. */
    private static final class TableRecordStrings implements ChangeRecordDeserializer<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ChangeRecord record, Collector<String> out) {
            out.collect(record.table() + ": " + RecordStrings.render(record));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    // ---- data ----

    private String tableWithTunnel(String prefix) {
        String table = bed.newTable(prefix);
        bed.createStreamTunnel(table, tunnel);
        return table;
    }

    private void awaitTunnel(String table) {
        Await.until(
                "the source's tunnel on " + table,
                TIMEOUT,
                () -> {
                    requireNoJobFailed();
                    try {
                        bed.describeTunnel(table, tunnel);
                        return true;
                    } catch (RuntimeException notYet) {
                        return false;
                    }
                });
    }

    /** Puts, updates and deletes keys on both sides of "m" of {@code table}. */
    private void writeRound(String table, int round, List<String> written) {
        for (String k : List.of("c", "h", "p", "x")) {
            String id = k + round;
            bed.put(table, id, new Column("v", ColumnValue.fromLong(round)));
            written.add(table + ": PUT id='" + id + "' v=" + round);
            bed.update(table, id, new Column("v", ColumnValue.fromLong(round * 10L)));
            written.add(table + ": UPDATE id='" + id + "' v=" + round * 10);
        }
        bed.delete(table, "h" + round);
        written.add(table + ": DELETE id='h" + round + "'");
    }

    // ---- assertions ----

    /** Every change written was committed once, and each row's changes in their order. */
    private static void assertCommittedExactlyOnce(String sink, List<String> written) {
        List<String> committed = CommittingListSink.committed(sink);
        assertThat(committed).containsExactlyInAnyOrderElementsOf(written);
        assertThat(perRow(committed)).isEqualTo(perRow(written));
    }

    private static Map<String, List<String>> perRow(List<String> changes) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String change : changes) {
            String[] parts = change.split(" ");
            out.computeIfAbsent(parts[0] + parts[2], k -> new ArrayList<>()).add(change);
        }
        return new TreeMap<>(out);
    }

    private void awaitCommitted(String sink, int count) {
        Await.until(
                count + " committed changes",
                TIMEOUT,
                () -> {
                    requireNoJobFailed();
                    return CommittingListSink.committed(sink).size() >= count;
                });
    }

    private void requireNoJobFailed() {
        for (JobClient job : jobs) {
            if (job.getJobStatus().join() == JobStatus.FAILED) {
                Throwable cause = job.getJobExecutionResult().handle((r, e) -> e).join();
                throw new AssertionError(
                        "Job failed: " + ExceptionUtils.stringifyException(cause), cause);
            }
        }
    }
}
