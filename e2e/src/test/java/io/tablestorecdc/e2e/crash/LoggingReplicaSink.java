package io.tablestorecdc.e2e.crash;

import com.alicloud.openservices.tablestore.SyncClient;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderReplica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;

/**
 * The crash test's Flink sink: buffers changes and, when a checkpoint is taken, appends them to
 * this subtask's change log under the checkpoint id, then upserts them into the replica table. So a
 * completed checkpoint means its changes are in the log and the replica; changes after it are
 * delivered again after a restore, and the upsert absorbs them.
 */
@SuppressWarnings("deprecation") // SinkFunction: the simplest sink that sees checkpoint ids
final class LoggingReplicaSink extends RichSinkFunction<SequencedChange>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final DemoTarget target;
    private final String replicaTable;
    private final String changeLogPrefix;
    private final int holdAt;
    private final String holdMarker;

    private transient SyncClient client;
    private transient OrderReplica replica;
    private transient List<SequencedChange> buffer;
    private transient Path changeLog;
    private transient CommitHold hold;

    LoggingReplicaSink(
            DemoTarget target,
            String replicaTable,
            String changeLogPrefix,
            int holdAt,
            String holdMarker) {
        this.target = target;
        this.replicaTable = replicaTable;
        this.changeLogPrefix = changeLogPrefix;
        this.holdAt = holdAt;
        this.holdMarker = holdMarker;
    }

    @Override
    public void open(Configuration parameters) {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        client = target.syncClient();
        replica = new OrderReplica(client, replicaTable);
        buffer = new ArrayList<>();
        changeLog = Path.of(changeLogPrefix + "-sink-" + subtask + ".changes");
        // One subtask holding is enough: the checkpoint cannot complete without it.
        hold = new CommitHold(subtask == 0 ? holdAt : 0, Path.of(holdMarker));
    }

    @Override
    public void invoke(SequencedChange change, Context context) {
        buffer.add(change);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (buffer.isEmpty()) {
            return;
        }
        long checkpoint = context.getCheckpointId();
        ChangeLog.append(changeLog, checkpoint, buffer.stream().map(c -> c.delivered()).toList());
        List<OrderChange> changes = buffer.stream().map(c -> c.change).toList();
        replica.apply(changes);
        ChildOutput.say(
                "checkpoint " + checkpoint + ": " + changes.size() + " changes in " + changeLog);
        buffer = new ArrayList<>();
        hold.delivered(checkpoint);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void close() {
        if (client != null) {
            client.shutdown();
        }
    }
}
