package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.CommittedPositions;
import io.tablestorecdc.checkpoint.consumer.PendingFinishes;
import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;

/**
 * How Flink checkpoints become this job's commits, in the core's model: finishes recorded in
 * snapshot N become durable when N completes ({@link PendingFinishes}); readers' positions arrive
 * committed; both build the committed state ({@link CommittedPositions}) that the meta table shows
 * and that the core's {@link ServerPushLedger} plans server pushes from (invariant 3). Coordinator
 * thread, except the ledger (thread-safe).
 */
@Internal
final class CheckpointCommits {

    private final CommittedPositions progress = new CommittedPositions();
    private final PendingFinishes pending = new PendingFinishes();
    private final ServerPushLedger pushes = new ServerPushLedger();
    private Map<String, ChannelPosition> metaWritten = Map.of();
    private final Set<String> adoptionsRecorded = new HashSet<>();

    /** The restored state is a completed checkpoint: its positions and finishes are committed. */
    void restore(EnumeratorState state) {
        for (EnumeratorState.Entry entry : state.splits().values()) {
            ChannelSplit split = entry.split();
            ChannelPosition position =
                    entry.status() == SplitStatus.FINISHED
                            ? ChannelPosition.finished()
                            : split.position();
            progress.adopt(split.splitId(), split.type(), position);
        }
    }

    ServerPushLedger pushes() {
        return pushes;
    }

    /** A channel this job starts reading at {@code start} (or that finished before it saw it). */
    void adopt(String channelId, ChannelType type, ChannelPosition start) {
        progress.adopt(channelId, type, start);
    }

    /** A restored channel skipped under {@code on.server.ahead=skip}: committed finished. */
    void skipped(String channelId) {
        progress.commit(channelId, ChannelPosition.finished());
    }

    /** Snapshot {@code checkpointId} records the finishes in {@code finished} not yet durable. */
    void recordSnapshot(long checkpointId, Collection<String> finished) {
        Map<String, ChannelPosition> committed = progress.positions();
        Set<String> notDurable = new TreeSet<>();
        for (String id : finished) {
            ChannelPosition position = committed.get(id);
            if (position == null || !position.isFinished()) {
                notDurable.add(id);
            }
        }
        pending.recordedIn(checkpointId, notDurable);
    }

    /**
     * Checkpoint {@code checkpointId} completed: the finishes it recorded are committed.
     *
     * @return the finishes committed now
     */
    Set<String> completed(long checkpointId) {
        Set<String> durable = pending.durableThrough(checkpointId);
        durable.forEach(id -> progress.commit(id, ChannelPosition.finished()));
        return durable;
    }

    /** Whether the channel's finish is committed (a completed checkpoint holds it). */
    boolean isCommittedFinish(String channelId) {
        ChannelPosition position = progress.positions().get(channelId);
        return position != null && position.isFinished();
    }

    /**
     * Finishes undone (their reader restarted before they were committed): no snapshot taken
     * earlier commits them when a later checkpoint completes.
     */
    void undoFinishes(Collection<String> ids) {
        pending.forget(ids);
    }

    /** Positions readers report from a completed checkpoint. */
    void committed(Collection<ChannelSplit> positions) {
        positions.forEach(s -> progress.commit(s.splitId(), s.position()));
    }

    /** The next pushes to the server, in flight until acknowledged or failed. */
    ServerCommitPlan planPush(String tunnelId) {
        return pushes.plan(progress.snapshot(tunnelId, BatchToken.random()));
    }

    /** The committed state to write to the meta table, unless it did not change since the last. */
    Optional<MetaWrite> metaWrite(String tunnelId) {
        Map<String, ChannelPosition> positions = progress.positions();
        if (positions.isEmpty() || positions.equals(metaWritten)) {
            return Optional.empty();
        }
        BatchSnapshot snapshot = progress.snapshot(tunnelId, BatchToken.random());
        List<ChannelCheckpoint> adoptions =
                progress.adoptions().values().stream()
                        .filter(a -> !adoptionsRecorded.contains(a.channelId()))
                        .toList();
        return Optional.of(new MetaWrite(snapshot, adoptions, positions));
    }

    /**
     * A meta write succeeded: its adoptions are recorded and are not sent again (a checkpoint's
     * write then costs the channels that moved, not every channel adopted; a restarted job sends
     * them once more, as put-if-absent no-ops).
     */
    void metaWritten(MetaWrite write) {
        metaWritten = write.positions();
        write.adoptions().forEach(a -> adoptionsRecorded.add(a.channelId()));
    }

    /** One snapshot for the meta table, with the adoptions it needs recorded. */
    record MetaWrite(
            BatchSnapshot snapshot,
            Collection<ChannelCheckpoint> adoptions,
            Map<String, ChannelPosition> positions) {}
}
