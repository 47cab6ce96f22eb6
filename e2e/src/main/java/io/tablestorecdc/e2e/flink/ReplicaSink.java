package io.tablestorecdc.e2e.flink;

import com.alicloud.openservices.tablestore.SyncClient;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderReplica;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;

/**
 * Keeps the Flink replica table: buffers changes and writes them (net per row) before each
 * checkpoint completes, so a completed checkpoint means its changes are in the table.
 *
 * <p>After a failure the job replays from the last checkpoint; the replayed changes are written
 * again in order, which leaves every row as it was (the replica is an upsert by key).
 */
@SuppressWarnings("deprecation") // SinkFunction: the simplest sink that sees checkpoint ids
final class ReplicaSink extends RichSinkFunction<OrderChange>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final int MAX_BUFFERED = 5000;

    private final String runId;
    private final DemoTarget target;
    private final String replicaTable;

    private transient SyncClient client;
    private transient OrderReplica replica;
    private transient List<OrderChange> buffer;

    ReplicaSink(String runId, DemoTarget target, String replicaTable) {
        this.runId = runId;
        this.target = target;
        this.replicaTable = replicaTable;
    }

    @Override
    public void open(Configuration parameters) {
        client = target.syncClient();
        replica = new OrderReplica(client, replicaTable);
        buffer = new ArrayList<>();
    }

    @Override
    public void invoke(OrderChange change, Context context) {
        buffer.add(change);
        if (buffer.size() >= MAX_BUFFERED) {
            flush();
        }
    }

    private void flush() {
        if (buffer.isEmpty()) {
            return;
        }
        replica.apply(buffer);
        List<OrderChange> written = buffer;
        FlinkRun.of(runId).ifPresent(run -> run.applied(written));
        buffer = new ArrayList<>();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        flush();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        FlinkRun.of(runId).ifPresent(run -> run.checkpointCompleted(checkpointId));
    }

    @Override
    public void close() {
        if (client != null) {
            client.shutdown();
        }
    }
}
