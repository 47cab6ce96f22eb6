package io.tablestorecdc.e2e.flink;

import io.tablestorecdc.e2e.orders.OrderChange;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Passes the changes to the replica's sink unchanged and reports them to the demo's console: the
 * changes of a checkpoint when it is taken (the sink, after this operator, writes them before the
 * checkpoint completes), one line when it completes.
 */
final class AppliedChanges
        implements MapFunction<OrderChange, OrderChange>, CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private transient List<OrderChange> sinceCheckpoint;

    AppliedChanges(String runId) {
        this.runId = runId;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
        sinceCheckpoint = new ArrayList<>();
    }

    @Override
    public OrderChange map(OrderChange change) {
        sinceCheckpoint.add(change);
        return change;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (sinceCheckpoint.isEmpty()) {
            return;
        }
        List<OrderChange> taken = sinceCheckpoint;
        sinceCheckpoint = new ArrayList<>();
        FlinkRun.of(runId).ifPresent(run -> run.applied(taken));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        FlinkRun.of(runId).ifPresent(run -> run.checkpointCompleted(checkpointId));
    }
}
