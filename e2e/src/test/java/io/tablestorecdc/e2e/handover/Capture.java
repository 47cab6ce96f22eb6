package io.tablestorecdc.e2e.handover;

import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Records every change at once (at least once), tagged with the first checkpoint that holds it, and
 * which checkpoints completed. Chained to the source, so a subtask sees each channel's changes in
 * read order and a checkpoint's barrier right after the changes that checkpoint holds. It emits
 * nothing; the job ends in a discarding Sink V2. A function rather than a sink because it must hear
 * of completed checkpoints, which Flink tells functions ({@link CheckpointListener}) but not Sink
 * V2 writers.
 *
 * <p>The local job runs in the test's JVM; its records reach the test through {@link Run}, found by
 * run id, because the function itself is serialized.
 */
final class Capture extends ProcessFunction<SeenChange, Void>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

    private final String runId;
    private transient long lastSnapshot;

    Capture(String runId) {
        this.runId = runId;
    }

    /** What the capturing subtasks of one job run report. */
    static final class Run {
        final DeliveryLog log = new DeliveryLog("flink");
        final NavigableSet<Long> completed = new ConcurrentSkipListSet<>();
    }

    static Run register(String runId) {
        Run run = new Run();
        RUNS.put(runId, run);
        return run;
    }

    static void unregister(String runId) {
        RUNS.remove(runId);
    }

    @Override
    public void processElement(SeenChange change, Context context, Collector<Void> out) {
        RUNS.get(runId).log.add(change.in(lastSnapshot + 1));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        lastSnapshot = context.getCheckpointId();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        RUNS.get(runId).completed.add(checkpointId);
    }
}
