package io.tablestorecdc.e2e.crash;

import com.alicloud.openservices.tablestore.SyncClient;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderReplica;
import io.tablestorecdc.flink.compat.WriterInitContextSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The crash test's Flink sink: buffers changes and, when a checkpoint is taken, appends them to
 * this subtask's change log under the checkpoint id, then upserts them into the replica table. So a
 * completed checkpoint means its changes are in the log and the replica; changes after it are
 * delivered again after a restore, and the upsert absorbs them.
 *
 * <p>A Sink V2 whose writer is stateful only to learn each checkpoint's id: the operator calls
 * {@link StatefulSinkWriter#snapshotState(long)} when the checkpoint's barrier reaches it, after
 * every change the checkpoint holds. The writer keeps no state (the buffer is empty after each
 * snapshot), so it snapshots none and a restored writer starts empty.
 */
final class LoggingReplicaSink extends WriterInitContextSink<SequencedChange>
        implements SupportsWriterState<SequencedChange, Void> {

    private static final long serialVersionUID = 1L;

    private final DemoTarget target;
    private final String replicaTable;
    private final String changeLogPrefix;
    private final int holdAt;
    private final String holdMarker;

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
    public Writer createWriter(WriterInitContext context) {
        return new Writer(
                context.getTaskInfo().getIndexOfThisSubtask(),
                context.getTaskInfo().getAttemptNumber());
    }

    @Override
    public Writer restoreWriter(WriterInitContext context, Collection<Void> recoveredState) {
        return createWriter(context);
    }

    /**
     * The change log of one sink subtask: a file per attempt after a failover inside the job (as on
     * a cluster), the first attempt's without an attempt number.
     */
    static Path changeLog(String prefix, int attempt, int subtask) {
        String run = attempt == 0 ? prefix : prefix + "-attempt-" + attempt;
        return Path.of(run + "-sink-" + subtask + ".changes");
    }

    @Override
    public SimpleVersionedSerializer<Void> getWriterStateSerializer() {
        return NoState.INSTANCE;
    }

    /** One subtask's writer. */
    final class Writer implements StatefulSinkWriter<SequencedChange, Void> {
        private final SyncClient client;
        private final OrderReplica replica;
        private final Path changeLog;
        private final CommitHold hold;
        private List<SequencedChange> buffer = new ArrayList<>();

        private Writer(int subtask, int attempt) {
            client = target.syncClient();
            replica = new OrderReplica(client, replicaTable);
            changeLog = changeLog(changeLogPrefix, attempt, subtask);
            // One subtask holding is enough: the checkpoint cannot complete without it.
            hold = new CommitHold(subtask == 0 ? holdAt : 0, Path.of(holdMarker));
        }

        @Override
        public void write(SequencedChange change, Context context) {
            buffer.add(change);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public List<Void> snapshotState(long checkpoint) {
            if (buffer.isEmpty()) {
                return List.of();
            }
            ChangeLog.append(
                    changeLog, checkpoint, buffer.stream().map(c -> c.delivered()).toList());
            List<OrderChange> changes = buffer.stream().map(c -> c.change).toList();
            replica.apply(changes);
            ChildOutput.say(
                    "checkpoint "
                            + checkpoint
                            + ": "
                            + changes.size()
                            + " changes in "
                            + changeLog);
            buffer = new ArrayList<>();
            hold.delivered(checkpoint);
            return List.of();
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    /** The writer snapshots no state; this serializer is never given any. */
    private static final class NoState implements SimpleVersionedSerializer<Void> {
        static final NoState INSTANCE = new NoState();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Void state) {
            return new byte[0];
        }

        @Override
        public Void deserialize(int version, byte[] serialized) {
            return null;
        }
    }
}
