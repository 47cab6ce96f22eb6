package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * The Flink source's cost per checkpoint and how it grows with channels: a job (parallelism 2, a
 * checkpoint every second, the meta table on) drains a tunnel, then idles for a few checkpoints
 * (counted after three more to let the last positions settle). Per completed checkpoint: meta-table
 * requests and rows written, tunnel checkpoint requests, and the checkpoint's time as the sink sees
 * it (barrier at the sink to completion).
 */
final class FlinkCheckpoints {

    private static final int PARALLELISM = 2;
    private static final int IDLE_CHECKPOINTS = 5;
    // Checkpoints after the drain before idleness is counted: the last positions still move
    // through the readers' reports and the enumerator's asynchronous meta write.
    private static final int SETTLE_CHECKPOINTS = 3;
    // The job runs in this JVM's mini cluster, so the sink reports through statics.
    private static final AtomicLong SEEN = new AtomicLong();
    private static final Map<Long, Long> BARRIER_NANOS = new ConcurrentHashMap<>();
    private static final Map<Long, Long> COMPLETE_NANOS = new ConcurrentHashMap<>();
    private static final Map<Long, Long> FULL_MILLIS = new ConcurrentHashMap<>();
    private static final Map<Long, Mark> MARKS = new ConcurrentHashMap<>();
    private static volatile FlinkCheckpoints current;
    private static final AtomicLong FIRST_SEEN_NANOS = new AtomicLong();
    private Runnable whenDrained = () -> {};
    private long firstRecordMs = -1;

    private final BenchEmulator emulator;
    private final ServerCounters counters;

    FlinkCheckpoints(BenchEmulator emulator, ServerCounters counters) {
        this.emulator = emulator;
        this.counters = counters;
    }

    private Runnable thenChanges = () -> {};
    private long changedRecords;
    private int changeWriteRequests;

    /** Counters when a checkpoint completed (first subtask to hear of it). */
    private record Mark(RequestCounts requests, long metaWritten, long metaDeleted, long seen) {}

    /** Per checkpoint while reading (until the first checkpoint after the last record) and idle. */
    record Figures(
            int channels,
            int activeCheckpoints,
            double metaRequestsPerCheckpoint,
            double metaRowsPerCheckpoint,
            double tunnelCheckpointsPerCheckpoint,
            long medianCheckpointMs,
            double idleMetaRequestsPerCheckpoint,
            double idleMetaRowsPerCheckpoint,
            double metaRowsDeletedPerCheckpoint,
            double medianMetaRowsPerCheckpoint,
            double steadyMetaRowsPerCheckpoint,
            long medianFullCheckpointMs,
            double changedMetaRequestsPerCheckpoint,
            double changedMetaRowsPerCheckpoint,
            Map<String, Long> changedRequestsByAction) {}

    Figures measure(String table, String tunnel, int channels, long expected) throws Exception {
        return measure(table, tunnel, channels, expected, MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY);
    }

    /** {@link #measure} with the source's {@code meta.full.snapshot.every} set. */
    Figures measure(String table, String tunnel, int channels, long expected, int fullEvery)
            throws Exception {
        return measure(
                FlinkDrain.source(emulator, table, tunnel, fullEvery), tunnel, channels, expected);
    }

    /**
     * In the next measurement, after the idle checkpoints: runs {@code writes}, which writes {@code
     * records} more rows in {@code writeRequests} BatchWriteRow requests (left out of the figures),
     * and measures the checkpoints until they are read (a job past its start whose checkpoints
     * carry changes).
     */
    FlinkCheckpoints thenChanges(Runnable writes, long records, int writeRequests) {
        this.thenChanges = writes;
        this.changedRecords = records;
        this.changeWriteRequests = writeRequests;
        return this;
    }

    /** Runs {@code action} in the next measurement once every record was read, job running. */
    FlinkCheckpoints whenDrained(Runnable action) {
        this.whenDrained = action;
        return this;
    }

    /** The last measurement's time from the job's submission to its first record. */
    long firstRecordMs() {
        return firstRecordMs;
    }

    /** {@link #measure} of a source built by the caller (of several tables, say). */
    Figures measure(TablestoreCdcSource<String> source, String tunnel, int channels, long expected)
            throws Exception {
        SEEN.set(0);
        FIRST_SEEN_NANOS.set(0);
        BARRIER_NANOS.clear();
        COMPLETE_NANOS.clear();
        FULL_MILLIS.clear();
        MARKS.clear();
        current = this;
        Mark start = mark();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, configuration());
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .process(new CheckpointWatch())
                .name("checkpoint watch")
                .sinkTo(new DiscardingSink<>())
                .name("discard");
        long submitted = System.nanoTime();
        JobClient job = env.executeAsync("tablestore-cdc bench checkpoints " + tunnel);
        try {
            long drainedAt = awaitDrainedCheckpoint(expected);
            firstRecordMs = (FIRST_SEEN_NANOS.get() - submitted) / 1_000_000;
            whenDrained.run();
            long settledAt = awaitCheckpoint(drainedAt + SETTLE_CHECKPOINTS);
            long endAt = awaitCheckpoint(settledAt + IDLE_CHECKPOINTS);
            Figures figures = figures(channels, start, drainedAt, settledAt, endAt);
            if (changedRecords > 0) {
                Mark before = MARKS.get(endAt);
                thenChanges.run();
                // Readers report a checkpoint's positions after it completes, and the next
                // completion writes them: two checkpoints more, so that the meta write of the
                // changes has landed.
                long changedAt =
                        awaitCheckpoint(awaitDrainedCheckpoint(expected + changedRecords) + 2);
                long checkpoints = Math.max(1, changedAt - endAt);
                Mark after = MARKS.get(changedAt);
                Map<String, Long> asked =
                        new LinkedHashMap<>(nonZero(after.requests().minus(before.requests())));
                asked.merge("BatchWriteRow", (long) -changeWriteRequests, Long::sum);
                long tableRequests =
                        after.requests().minus(before.requests()).table() - changeWriteRequests;
                figures =
                        new Figures(
                                figures.channels(),
                                figures.activeCheckpoints(),
                                figures.metaRequestsPerCheckpoint(),
                                figures.metaRowsPerCheckpoint(),
                                figures.tunnelCheckpointsPerCheckpoint(),
                                figures.medianCheckpointMs(),
                                figures.idleMetaRequestsPerCheckpoint(),
                                figures.idleMetaRowsPerCheckpoint(),
                                figures.metaRowsDeletedPerCheckpoint(),
                                figures.medianMetaRowsPerCheckpoint(),
                                figures.steadyMetaRowsPerCheckpoint(),
                                figures.medianFullCheckpointMs(),
                                tableRequests / (double) checkpoints,
                                (after.metaWritten() - before.metaWritten()) / (double) checkpoints,
                                asked);
            }
            return figures;
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
            job.getJobExecutionResult().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
            current = null;
            whenDrained = () -> {};
        }
    }

    private Figures figures(int channels, Mark start, long drainedAt, long settledAt, long endAt) {
        long first = MARKS.keySet().stream().mapToLong(Long::longValue).min().orElseThrow();
        Mark drained = MARKS.get(drainedAt);
        Mark settled = MARKS.get(settledAt);
        Mark end = MARKS.get(endAt);
        int idleCheckpoints = (int) (endAt - settledAt);
        long active = drainedAt - first + 1;
        List<Long> durations = new ArrayList<>();
        COMPLETE_NANOS.forEach(
                (id, done) -> {
                    Long barrier = BARRIER_NANOS.get(id);
                    if (barrier != null && id <= drainedAt) {
                        durations.add((done - barrier) / 1_000_000);
                    }
                });
        durations.sort(null);
        RequestCounts reading = drained.requests().minus(start.requests());
        RequestCounts idle = end.requests().minus(settled.requests());
        return new Figures(
                channels,
                (int) active,
                reading.table() / (double) active,
                (drained.metaWritten() - start.metaWritten()) / (double) active,
                reading.get("tunnel/checkpoint") / (double) active,
                durations.isEmpty() ? -1 : durations.get(durations.size() / 2),
                idle.table() / (double) idleCheckpoints,
                (end.metaWritten() - settled.metaWritten()) / (double) idleCheckpoints,
                (drained.metaDeleted() - start.metaDeleted()) / (double) active,
                medianRowsWritten(first, drainedAt),
                drainedAt > first
                        ? (drained.metaWritten() - MARKS.get(first).metaWritten())
                                / (double) (drainedAt - first)
                        : Double.NaN,
                medianFullMillis(endAt),
                Double.NaN,
                Double.NaN,
                Map.of());
    }

    private static Map<String, Long> nonZero(RequestCounts counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.byAction()
                .forEach(
                        (a, n) -> {
                            if (n != 0) {
                                out.put(a, n);
                            }
                        });
        return out;
    }

    /**
     * The median duration of the checkpoints up to {@code last} as the JobManager measures them,
     * from the trigger (the enumerators' snapshots included) to completion; -1 without the gauge.
     */
    private static long medianFullMillis(long last) {
        List<Long> millis = new ArrayList<>();
        FULL_MILLIS.forEach(
                (id, ms) -> {
                    if (id <= last) {
                        millis.add(ms);
                    }
                });
        millis.sort(null);
        return millis.isEmpty() ? -1 : millis.get(millis.size() / 2);
    }

    /** The median of the meta rows written between consecutive completed checkpoints. */
    private static double medianRowsWritten(long first, long last) {
        List<Long> rows = new ArrayList<>();
        Mark before = null;
        for (long id = first; id <= last; id++) {
            Mark m = MARKS.get(id);
            if (m != null) {
                if (before != null) {
                    rows.add(m.metaWritten() - before.metaWritten());
                }
                before = m;
            }
        }
        rows.sort(null);
        return rows.isEmpty() ? Double.NaN : rows.get(rows.size() / 2);
    }

    private Mark mark() {
        ServerCounters.MetaWrites meta = counters.metaWrites();
        return new Mark(counters.requests(), meta.written(), meta.deleted(), SEEN.get());
    }

    /** The id of the first checkpoint completed after every expected record reached the sink. */
    private static long awaitDrainedCheckpoint(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline) {
            long found =
                    MARKS.entrySet().stream()
                            .filter(e -> e.getValue().seen() >= expected)
                            .mapToLong(Map.Entry::getKey)
                            .min()
                            .orElse(-1);
            if (found >= 0) {
                return found;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(
                "Flink saw " + SEEN.get() + " of " + expected + " records in 5 minutes");
    }

    /**
     * Waits for the first completed checkpoint with an id of at least {@code id} (ids may skip).
     */
    private static long awaitCheckpoint(long id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            Optional<Long> done = MARKS.keySet().stream().filter(k -> k >= id).min(Long::compare);
            if (done.isPresent()) {
                return done.get();
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("Checkpoint " + id + " not complete in 2 minutes");
    }

    private static Configuration configuration() {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.setString(
                "metrics.reporter.checkpoints.factory.class",
                CheckpointDurations.Factory.class.getName());
        return conf;
    }

    /**
     * Counts records and notes when each checkpoint's barrier arrived and when it completed; emits
     * nothing. A function, chained to the source, rather than a sink: Flink tells functions, not
     * Sink V2 writers, when a checkpoint completes.
     */
    private static final class CheckpointWatch extends ProcessFunction<String, Void>
            implements CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(String value, Context context, Collector<Void> out) {
            if (SEEN.incrementAndGet() == 1) {
                FIRST_SEEN_NANOS.compareAndSet(0, System.nanoTime());
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            BARRIER_NANOS.putIfAbsent(context.getCheckpointId(), System.nanoTime());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            COMPLETE_NANOS.putIfAbsent(checkpointId, System.nanoTime());
            CheckpointDurations.lastMillis()
                    .ifPresent(ms -> FULL_MILLIS.putIfAbsent(checkpointId, ms));
            FlinkCheckpoints bench = current;
            if (bench != null) {
                MARKS.computeIfAbsent(checkpointId, id -> bench.mark());
            }
        }
    }
}
