package io.tablestorecdc.flink.source.it;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelStatus;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.meta.IncompleteSnapshotException;
import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.SnapshotNotFoundException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.server.Faults.ConnectionFault;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import io.tablestorecdc.flink.testing.CommittingListSink;
import io.tablestorecdc.flink.testing.FailOnce;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The source in a MiniCluster against the emulator, through the real SDK. Each test checks the
 * committed output of an exactly-once sink against the changes written. Two TaskManagers with two
 * slots each, so that a job of parallelism 4 has readers on both (the TaskManager failure test).
 */
class TablestoreCdcSourceITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String META_TABLE = "flink_meta";
    private static final AtomicInteger COUNTER = new AtomicInteger();

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private final List<JobClient> jobs = new ArrayList<>();
    private String table;
    private String tunnel;
    private ServerAheadPolicy serverAhead = ServerAheadPolicy.FAIL;

    @AfterEach
    void cancelJobs() {
        jobs.forEach(FlinkJobs::cancelAndAwaitEnd);
    }

    @Test
    void readsPutsUpdatesAndDeletesExactlyOnce() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "plain-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2));

        put("a", 1);
        put("b", 2);
        update("a", 10);
        delete("b");
        put("c", 3);

        List<String> expected =
                List.of(
                        "PUT id='a' v=1",
                        "PUT id='b' v=2",
                        "UPDATE id='a' v=10",
                        "DELETE id='b'",
                        "PUT id='c' v=3");
        await(
                "all changes committed",
                () -> CommittingListSink.committed(sink).size() >= expected.size());
        assertThat(CommittingListSink.committed(sink)).containsExactlyElementsOf(expected);

        // Progress is visible in the meta table: a complete snapshot of committed positions.
        String tunnelId =
                bed.tunnels()
                        .describeTunnel(new DescribeTunnelRequest(table, tunnel))
                        .getTunnelInfo()
                        .getTunnelId();
        try (SdkMetaTableClient client = SdkMetaTableClient.connect(endpoint(), META_TABLE)) {
            TunnelMeta store = new MetaTable(client).tunnel(tunnelId);
            await(
                    "a meta snapshot with a read channel",
                    () ->
                            latestMetaSnapshot(store)
                                    .map(
                                            s ->
                                                    s.channels().values().stream()
                                                            .anyMatch(
                                                                    c ->
                                                                            c.lifecycle()
                                                                                    == ChannelLifecycle
                                                                                            .READING))
                                    .orElse(false));
            assertThat(keptBesidesBases(store.batchLog())).hasSizeLessThanOrEqualTo(3);
        }
    }

    /** The logged snapshots other than the full ones a kept delta completes. */
    private static List<LoggedBatch> keptBesidesBases(List<LoggedBatch> log) {
        java.util.Set<io.tablestorecdc.checkpoint.model.BatchToken> bases =
                new java.util.HashSet<>();
        log.forEach(b -> b.base().ifPresent(bases::add));
        return log.stream().filter(b -> !bases.contains(b.token())).toList();
    }

    @Test
    void metaSnapshotsOfASparseStreamAreDeltasThatReadBackWhole() throws Exception {
        givenTableWithStreamTunnel();
        for (String at : List.of("b", "d", "f", "h", "j", "l", "n", "p")) {
            splitAt(at);
        }
        String sink = "sparse-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2));
        String tunnelId =
                bed.tunnels()
                        .describeTunnel(new DescribeTunnelRequest(table, tunnel))
                        .getTunnelInfo()
                        .getTunnelId();
        try (SdkMetaTableClient client = SdkMetaTableClient.connect(endpoint(), META_TABLE)) {
            MetaTable metaTable = new MetaTable(client);
            metaTable.ensureTable(); // the job creates it too; this test may look first
            TunnelMeta store = metaTable.tunnel(tunnelId);
            int[] written = {0};
            // One of nine partitions takes changes: once the job reads all nine, each
            // checkpoint's snapshot is a delta over the last full one, holding few rows itself.
            DeltaSeen[] delta = new DeltaSeen[1];
            await(
                    "a delta snapshot of all nine partitions",
                    () -> {
                        put("a" + written[0], written[0]++);
                        delta[0] = newestDeltaOfOpenChannels(store, client, 9);
                        return delta[0] != null;
                    });
            assertThat(delta[0].ownRows()).isLessThan(delta[0].whole().channels().size());
            assertThat(delta[0].whole().channels().values())
                    .anyMatch(c -> c.lifecycle() == ChannelLifecycle.READING);
            await(
                    "all changes committed",
                    () -> CommittingListSink.committed(sink).size() >= written[0]);
        }
    }

    /** A delta snapshot as read back, and the rows stored under its own token. */
    private record DeltaSeen(LoggedBatch batch, BatchSnapshot whole, int ownRows) {}

    /** The newest delta snapshot, if it holds {@code open} unfinished channels; else null. */
    private static DeltaSeen newestDeltaOfOpenChannels(
            TunnelMeta store, SdkMetaTableClient client, int open) {
        Optional<LoggedBatch> newest =
                store.batchLog().stream()
                        .filter(b -> b.base().isPresent())
                        .max(java.util.Comparator.comparingLong(LoggedBatch::sequence));
        if (newest.isEmpty()) {
            return null;
        }
        try {
            BatchSnapshot whole = store.read(newest.get().token());
            long unfinished =
                    whole.channels().values().stream().filter(c -> !c.isFinished()).count();
            int own =
                    client.readRange(
                                    store.tunnelId(),
                                    newest.get().token().toString(),
                                    Optional.empty(),
                                    MetaTableClient.MAX_RANGE_ROWS)
                            .rows()
                            .size();
            return unfinished == open ? new DeltaSeen(newest.get(), whole, own) : null;
        } catch (SnapshotNotFoundException | IncompleteSnapshotException e) {
            return null; // being written or purged
        }
    }

    /** The newest snapshot, or empty while it is being written or purged (rows come and go). */
    private static Optional<BatchSnapshot> latestMetaSnapshot(TunnelMeta store) {
        Optional<LoggedBatch> newest =
                store.batchLog().stream()
                        .max(java.util.Comparator.comparingLong(LoggedBatch::sequence));
        try {
            return newest.map(b -> store.read(b.token()));
        } catch (SnapshotNotFoundException | IncompleteSnapshotException e) {
            return Optional.empty();
        }
    }

    private static TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                bed.emulator().endpoint(),
                bed.emulator().instanceName(),
                TablestoreCredentials.of(
                        bed.emulator().accessKeyId(), bed.emulator().accessKeySecret()));
    }

    @Test
    void followsASplitAndAMergeWithoutLossOrDuplicates() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "lineage-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2));
        List<String> written = new ArrayList<>();

        writeRoundAndAwaitCommitted(sink, 1, written);
        List<String> children = splitAt("m");
        assertThat(children).hasSize(2);
        writeRoundAndAwaitCommitted(sink, 2, written);
        bed.emulator().tunnels().merge(table, key("m"));
        writeRoundAndAwaitCommitted(sink, 3, written);

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void resumesFromARetainedCheckpointAfterCancel(@TempDir Path checkpoints) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "restore-" + COUNTER.incrementAndGet();
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
        JobClient first = run(sink, conf, 2);
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);

        latestCheckpoint(checkpoints); // at least one completed checkpoint holds round 1
        first.cancel().get();
        // Chosen after the cancel: while the job ran, a newer checkpoint could subsume (delete) it.
        Path checkpoint = latestCheckpoint(checkpoints);
        writeRound(2, written);
        Configuration restore = restoringFrom(conf, checkpoint.toUri().toString());
        jobs.add(run(sink, restore, 2));
        awaitCommitted(sink, written.size());

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void restoresFromASavepointAtAnotherParallelism(@TempDir Path savepoints) throws Exception {
        restoresFromASavepointAtAnotherParallelism(savepoints, "savepoint-");
    }

    /**
     * As above, with the split parent's last change a delete that the server applied but whose
     * answer was lost. The test bed must not send it again: the stream would then hold the delete
     * twice, and the sink would rightly commit it twice.
     */
    @Test
    void restoresFromASavepointAtAnotherParallelismAfterADeleteWhoseAnswerWasLost(
            @TempDir Path savepoints) throws Exception {
        long deletes = bed.emulator().server().requestCount("DeleteRow");
        // The first DeleteRow of the test is the last write of round 1: delete h1.
        bed.emulator()
                .faults()
                .add(Faults.Rule.connection("DeleteRow", ConnectionFault.CLOSE_BEFORE_ANSWER, 1));
        try {
            restoresFromASavepointAtAnotherParallelism(savepoints, "savepoint-lost-answer-");
        } finally {
            bed.emulator().faults().clear();
        }
        assertThat(bed.emulator().server().requestCount("DeleteRow") - deletes)
                .as("one delete per round, none sent again")
                .isEqualTo(4);
    }

    private void restoresFromASavepointAtAnotherParallelism(Path savepoints, String sinkPrefix)
            throws Exception {
        givenTableWithStreamTunnel();
        String sink = sinkPrefix + COUNTER.incrementAndGet();
        JobClient first = run(sink, new Configuration(), 2);
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);
        splitAt("m"); // two channels, one per reader
        writeRoundAndAwaitCommitted(sink, 2, written);

        String savepoint = stopWithSavepoint(first, savepoints);
        writeRound(3, written);
        Configuration restore = restoringFrom(new Configuration(), savepoint);
        jobs.add(run(sink, restore, 1));
        writeRoundAndAwaitCommitted(sink, 4, written);

        assertCommittedExactlyOnce(sink, written);
    }

    // ---- restoring from older state (docs/exactly-once.md, "Restoring from older state") ----

    /**
     * The old state is taken before a split, a merge and a split; the server then finished the
     * channels of rounds 2 and 3. By default the restored job fails naming them; with {@code
     * on.server.ahead=skip} it delivers exactly what the server can still serve (round 4), once.
     */
    @ParameterizedTest(name = "older {0}")
    @ValueSource(strings = {"savepoint", "retained checkpoint"})
    void aRestoreAcrossFinishedChannelsFailsNamingThemOrWithSkipReadsWhatIsLeftOnce(
            String kind, @TempDir Path states) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "older-" + COUNTER.incrementAndGet();
        Configuration conf = retainingCheckpointsIn(states.resolve("checkpoints"));
        JobClient first = run(sink, conf, 1);
        List<String> round1 = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, round1);
        awaitCheckpointsAfter(sink, 2); // the old state's sink holds nothing uncommitted
        String older = olderState(kind, first, states);

        jobs.add(run(sink, restoringFrom(conf, older), 2));
        List<String> all = new ArrayList<>(round1); // the sink's committed changes so far
        splitAt("m");
        writeRoundAndAwaitCommitted(sink, 2, all);
        bed.emulator().tunnels().merge(table, key("m"));
        writeRoundAndAwaitCommitted(sink, 3, all);
        splitAt("m");
        List<String> round4 = new ArrayList<>();
        writeRound(4, round4);
        all.addAll(round4);
        awaitCommitted(sink, all.size());
        cancelJobs(); // and await their end: the next job must find no live predecessor
        jobs.clear();

        String refusedSink = sink + "-fail";
        JobClient refused = run(refusedSink, restoringFrom(conf, older), 2);
        Throwable failure = refused.getJobExecutionResult().handle((r, e) -> e).get();
        assertThat(failure)
                .as("the job fails")
                .isNotNull()
                .hasStackTraceContaining("restored from state older than the tunnel server's")
                .hasStackTraceContaining("(Flink checkpoint or savepoint ")
                .hasStackTraceContaining("p-0: every change after position")
                .hasStackTraceContaining("restore from the newest checkpoint or savepoint")
                .hasStackTraceContaining("on.server.ahead=skip");
        assertThat(CommittingListSink.committed(refusedSink)).as("nothing delivered").isEmpty();

        String skipSink = sink + "-skip";
        serverAhead = ServerAheadPolicy.SKIP;
        jobs.add(run(skipSink, restoringFrom(conf, older), 2));
        awaitCommitted(skipSink, round4.size());
        awaitCheckpointsAfter(skipSink, 3); // a duplicate would be committed by these
        assertCommittedExactlyOnce(skipSink, round4);
    }

    /**
     * The old savepoint is taken before a split whose parent a later run read to its end: the only
     * unreadable channel is one the savepoint holds assigned to a reader, so the reader judges it
     * (its state holds it unfinished). By default the job fails naming it; with {@code
     * on.server.ahead=skip} it delivers exactly the children's changes, once.
     */
    @Test
    void aRestoreAcrossAFinishedAssignedChannelFailsInItsReaderOrWithSkipReadsTheChildrenOnce(
            @TempDir Path savepoints) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "older-assigned-" + COUNTER.incrementAndGet();
        JobClient first = run(sink, new Configuration(), 1);
        List<String> all = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, all);
        awaitCheckpointsAfter(sink, 2); // the savepoint's sink holds nothing uncommitted
        String older = stopWithSavepoint(first, savepoints);

        jobs.add(run(sink, restoringFrom(new Configuration(), older), 2));
        splitAt("m");
        List<String> children = new ArrayList<>();
        writeRound(2, children);
        all.addAll(children);
        awaitCommitted(sink, all.size());
        cancelJobs(); // and await their end: the next job must find no live predecessor
        jobs.clear();

        String refusedSink = sink + "-fail";
        JobClient refused = run(refusedSink, restoringFrom(new Configuration(), older), 2);
        Throwable failure = refused.getJobExecutionResult().handle((r, e) -> e).get();
        assertThat(failure)
                .as("the job fails")
                .isNotNull()
                .hasStackTraceContaining("restored from state older than the tunnel server's")
                .hasStackTraceContaining("(Flink checkpoint or savepoint ")
                .hasStackTraceContaining("the server has finished 1 channel(s)")
                .hasStackTraceContaining("p-0: every change after position")
                .hasStackTraceContaining("(the state holds it unfinished")
                .hasStackTraceContaining("on.server.ahead=skip");
        assertThat(CommittingListSink.committed(refusedSink)).as("nothing delivered").isEmpty();

        String skipSink = sink + "-skip";
        serverAhead = ServerAheadPolicy.SKIP;
        jobs.add(run(skipSink, restoringFrom(new Configuration(), older), 2));
        awaitCommitted(skipSink, children.size());
        awaitCheckpointsAfter(skipSink, 3); // a duplicate would be committed by these
        assertCommittedExactlyOnce(skipSink, children);
    }

    @Test
    void aRestoreFromAnOlderSavepointWithNothingFinishedSinceReadsTheLaterChangesAgain(
            @TempDir Path savepoints) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "reread-" + COUNTER.incrementAndGet();
        JobClient first = run(sink, new Configuration(), 2);
        List<String> all = new ArrayList<>(); // the sink's committed changes so far
        writeRoundAndAwaitCommitted(sink, 1, all);
        awaitCheckpointsAfter(sink, 2); // the savepoint's sink holds nothing uncommitted
        String older = stopWithSavepoint(first, savepoints);
        jobs.add(run(sink, restoringFrom(new Configuration(), older), 2));
        List<String> later = new ArrayList<>();
        writeRound(2, later);
        all.addAll(later);
        awaitCommitted(sink, all.size());
        cancelJobs(); // and await their end: the next job must find no live predecessor
        jobs.clear();

        String again = sink + "-again";
        jobs.add(run(again, restoringFrom(new Configuration(), older), 2));
        awaitCommitted(again, later.size());
        awaitCheckpointsAfter(again, 3);
        assertCommittedExactlyOnce(again, later);
    }

    @Test
    void restoresFromASavepointAtAHigherParallelismWhileChannelsAreAssigned(
            @TempDir Path savepoints) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "scale-up-" + COUNTER.incrementAndGet();
        JobClient first = run(sink, new Configuration(), 1);
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);
        splitAt("m"); // both children on the one reader
        writeRoundAndAwaitCommitted(sink, 2, written);

        String savepoint = stopWithSavepoint(first, savepoints);
        writeRound(3, written);
        Configuration restore = restoringFrom(new Configuration(), savepoint);
        jobs.add(run(sink, restore, 3));
        writeRoundAndAwaitCommitted(sink, 4, written);
        // The lineage goes on at the new parallelism: a child splits again after the restore.
        splitAt("t");
        writeRoundAndAwaitCommitted(sink, 5, written);

        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void recoversFromATaskManagerFailureMidChannelExactlyOnce(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        givenTableWithStreamTunnel();
        String sink = "tm-failure-" + COUNTER.incrementAndGet();
        Configuration conf = fixedDelayRestarts(5, Duration.ofMillis(200));
        JobClient job = run(sink, conf, 4); // every slot of both TaskManagers
        jobs.add(job);
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);
        splitAt("m"); // two channels, read by two readers
        writeRoundAndAwaitCommitted(sink, 2, written);

        writeRound(3, written); // being read while the TaskManager goes away
        cluster.terminateTaskManager(0).get();
        cluster.startTaskManager(); // slots for the restarted job
        writeRoundAndAwaitCommitted(sink, 4, written);

        assertThat(
                        cluster.getExecutionGraph(job.getJobID())
                                .get()
                                .getStatusTimestamp(JobStatus.RESTARTING))
                .as("the job restarted after losing a TaskManager")
                .isPositive();
        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void withAnEndPositionReadsEveryChangeUpToItThenFinishes() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "bounded-" + COUNTER.incrementAndGet();
        List<String> written = new ArrayList<>();
        writeRound(1, written);
        splitAt("m");
        writeRound(2, written); // in the children
        Instant stopAt = Instant.now();
        await("the clock to pass the end", () -> Instant.now().isAfter(stopAt.plusMillis(2)));
        writeRound(3, new ArrayList<>()); // after the end: in both children, never emitted

        // Split-level watermark alignment on: the readers pause and resume channels.
        WatermarkStrategy<String> aligned =
                WatermarkStrategy.<String>forMonotonousTimestamps()
                        .withIdleness(Duration.ofMillis(500))
                        .withWatermarkAlignment(
                                "tablestore", Duration.ofMillis(20), Duration.ofMillis(50));
        JobClient job = run(sink, new Configuration(), 2, value -> value, stopAt, aligned);
        jobs.add(job);
        job.getJobExecutionResult().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertCommittedExactlyOnce(sink, written);
        // A stop is not a finish: the children stay open on the server for the next consumer.
        assertThat(
                        bed.tunnels()
                                .describeTunnel(new DescribeTunnelRequest(table, tunnel))
                                .getChannelInfos())
                .hasSize(3)
                .filteredOn(c -> c.getChannelStatus() == ChannelStatus.TERMINATED)
                .hasSize(1);
    }

    @Test
    void survivesTransientServerErrors() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "faults-" + COUNTER.incrementAndGet();
        bed.emulator()
                .faults()
                .add(Faults.Rule.error("tunnel/readrecords", "OTSServerBusy", 503, 3));
        bed.emulator().faults().add(Faults.Rule.error("tunnel/describe", "OTSServerBusy", 503, 2));
        try {
            jobs.add(run(sink, new Configuration(), 2));
            List<String> written = new ArrayList<>();
            writeRoundAndAwaitCommitted(sink, 1, written);

            assertCommittedExactlyOnce(sink, written);
        } finally {
            bed.emulator().faults().clear();
        }
    }

    @Test
    void readsTheBaseDataThenTheStreamOfABaseAndStreamTunnel() throws Exception {
        givenTable();
        put("a", 1);
        put("b", 2);
        bed.tunnels()
                .createTunnel(new CreateTunnelRequest(table, tunnel, TunnelType.BaseAndStream));
        String sink = "base-stream-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2));
        update("a", 10);
        put("c", 3);

        awaitCommitted(sink, 4);
        assertThat(perKey(CommittingListSink.committed(sink)))
                .containsEntry("id='a'", List.of("PUT id='a' v=1", "UPDATE id='a' v=10"))
                .containsEntry("id='b'", List.of("PUT id='b' v=2"))
                .containsEntry("id='c'", List.of("PUT id='c' v=3"))
                .hasSize(3);
    }

    @Test
    void recoversFromATaskFailureMidChannelExactlyOnce() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "failover-" + COUNTER.incrementAndGet();
        Configuration conf = fixedDelayRestarts(3, Duration.ofMillis(100));
        FailOnce.arm(sink);
        jobs.add(run(sink, conf, 2, new FailOnce(sink, "id='p2'")));
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);
        writeRound(2, written); // the task fails at p2, after the first round was committed
        writeRoundAndAwaitCommitted(sink, 3, written);

        assertThat(FailOnce.fired(sink)).isTrue();
        assertCommittedExactlyOnce(sink, written);
    }

    @Test
    void aSecondJobOnTheSameTunnelFailsWhileTheFirstKeepsReading() throws Exception {
        givenTableWithStreamTunnel();
        String sink = "owner-" + COUNTER.incrementAndGet();
        jobs.add(run(sink, new Configuration(), 2));
        List<String> written = new ArrayList<>();
        writeRoundAndAwaitCommitted(sink, 1, written);

        JobClient second = run("owner-second-" + COUNTER.incrementAndGet(), new Configuration(), 1);
        Throwable refused = second.getJobExecutionResult().handle((r, e) -> e).join();

        assertThat(refused).isNotNull();
        assertThat(ExceptionUtils.stringifyException(refused))
                .contains("OwnershipConflictException")
                .contains("Only one Spark query or Flink job may read a tunnel");
        writeRoundAndAwaitCommitted(sink, 2, written);
        assertThat(CommittingListSink.committed(sink)).containsExactlyInAnyOrderElementsOf(written);
    }

    // ---- job ----

    private JobClient run(String sinkName, Configuration conf, int parallelism) throws Exception {
        return run(sinkName, conf, parallelism, value -> value);
    }

    private JobClient run(
            String sinkName, Configuration conf, int parallelism, MapFunction<String, String> map)
            throws Exception {
        return run(sinkName, conf, parallelism, map, null, WatermarkStrategy.noWatermarks());
    }

    private JobClient run(
            String sinkName,
            Configuration conf,
            int parallelism,
            MapFunction<String, String> map,
            Instant stopAt,
            WatermarkStrategy<String> watermarks)
            throws Exception {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        config.addAll(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        env.fromSource(source(stopAt), watermarks, "tablestore-cdc")
                .uid("source")
                .map(map)
                .uid("map")
                .sinkTo(new CommittingListSink(sinkName))
                .uid("sink")
                .setParallelism(1);
        return env.executeAsync("tablestore-cdc " + sinkName);
    }

    private static String stopWithSavepoint(JobClient job, Path savepoints) throws Exception {
        return job.stopWithSavepoint(
                        false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get();
    }

    /** {@code conf}, starting from the checkpoint or savepoint at {@code path}. */
    private static Configuration restoringFrom(Configuration conf, String path) {
        Configuration restore = new Configuration(conf);
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return restore;
    }

    private static Configuration retainingCheckpointsIn(Path dir) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
        return conf;
    }

    /** Stops {@code job} and returns its last state of {@code kind}, for a later restore. */
    private static String olderState(String kind, JobClient job, Path states) throws Exception {
        if (kind.equals("savepoint")) {
            return stopWithSavepoint(job, states.resolve("savepoints"));
        }
        latestCheckpoint(states.resolve("checkpoints"));
        job.cancel().get();
        return latestCheckpoint(states.resolve("checkpoints")).toUri().toString();
    }

    /** Waits until {@code n} more checkpoints of the job writing {@code sink} have committed. */
    private void awaitCheckpointsAfter(String sink, int n) {
        long target = CommittingListSink.commits(sink) + n;
        await(n + " more checkpoints", () -> CommittingListSink.commits(sink) >= target);
    }

    private static Configuration fixedDelayRestarts(int attempts, Duration delay) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
        return conf;
    }

    private TablestoreCdcSource<String> source(Instant stopAt) {
        return TablestoreCdcSource.<String>builder()
                .setEndpoint(bed.emulator().endpoint())
                .setInstanceName(bed.emulator().instanceName())
                .setCredentials(bed.emulator().accessKeyId(), bed.emulator().accessKeySecret())
                .setTableName(table)
                .setTunnelName(tunnel)
                .setDiscoveryInterval(Duration.ofMillis(200))
                .setHeartbeatInterval(Duration.ofSeconds(5))
                .setHeartbeatTimeout(Duration.ofSeconds(30))
                .setMetaTable(META_TABLE)
                .setMetaRetentionBatches(3)
                .setStopAt(stopAt)
                .setOnServerAhead(serverAhead)
                .setDeserializer(new RecordStrings())
                .build();
    }

    // ---- data ----

    private void givenTableWithStreamTunnel() {
        givenTable();
        bed.createStreamTunnel(table, tunnel);
    }

    private void givenTable() {
        table = bed.newTable("flink_t");
        tunnel = table + "_tunnel";
    }

    private void writeRoundAndAwaitCommitted(String sink, int round, List<String> written) {
        writeRound(round, written);
        awaitCommitted(sink, written.size());
    }

    /** Splits the channel holding row {@code id}; returns the children. */
    private List<String> splitAt(String id) {
        return bed.emulator().tunnels().split(table, key(id));
    }

    /** Puts, updates and deletes keys on both sides of "m". */
    private void writeRound(int round, List<String> written) {
        for (String k : List.of("c", "h", "p", "x")) {
            String id = k + round;
            put(id, round);
            written.add("PUT id='" + id + "' v=" + round);
            update(id, round * 10L);
            written.add("UPDATE id='" + id + "' v=" + round * 10);
        }
        delete("h" + round);
        written.add("DELETE id='h" + round + "'");
    }

    private void put(String id, long v) {
        bed.put(table, id, new Column("v", ColumnValue.fromLong(v)));
    }

    private void update(String id, long v) {
        bed.update(table, id, new Column("v", ColumnValue.fromLong(v)));
    }

    private void delete(String id) {
        bed.delete(table, id);
    }

    // ---- assertions ----

    /** Every change written was committed once, and each key's changes in their order. */
    private static void assertCommittedExactlyOnce(String sink, List<String> written) {
        List<String> committed = CommittingListSink.committed(sink);
        assertThat(committed).containsExactlyInAnyOrderElementsOf(written);
        assertThat(perKey(committed)).isEqualTo(perKey(written));
    }

    private static Map<String, List<String>> perKey(List<String> changes) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String change : changes) {
            String key = change.split(" ")[1];
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(change);
        }
        return new java.util.TreeMap<>(out);
    }

    private void awaitCommitted(String sink, int count) {
        await(
                count + " committed changes (have " + CommittingListSink.committed(sink) + ")",
                () -> {
                    requireNoJobFailed();
                    return CommittingListSink.committed(sink).size() >= count;
                });
    }

    private void requireNoJobFailed() {
        for (JobClient job : jobs) {
            if (job.getJobStatus().join() == JobStatus.FAILED) {
                throw new AssertionError(
                        "Job " + job.getJobID() + " failed",
                        job.getJobExecutionResult().handle((r, e) -> e).join());
            }
        }
    }

    private static Path latestCheckpoint(Path root) {
        Path[] found = new Path[1];
        await("a retained checkpoint", () -> (found[0] = findLatest(root).orElse(null)) != null);
        return found[0];
    }

    private static Optional<Path> findLatest(Path root) {
        try (Stream<Path> files = Files.walk(root, 3)) {
            return files.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max((a, b) -> Long.compare(number(a), number(b)));
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty(); // a subsumed checkpoint was deleted while walking
        }
    }

    private static long number(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring(4));
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + TIMEOUT + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
