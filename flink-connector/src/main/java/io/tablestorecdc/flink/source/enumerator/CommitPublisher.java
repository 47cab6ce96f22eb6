package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the job's committed state: pushes to the tunnel server what the core's plan says the
 * server lacks (invariant 3), and writes the committed positions to the meta table (invariant 7).
 * Both run on the enumerator's worker thread, queued in order, through the core's consumer, which
 * fences them by the owner lease; their outcomes come back to the coordinator thread, which owns
 * this object. A lost lease fails the job without restarts ({@link OwnershipLoss}).
 */
@Internal
final class CommitPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(CommitPublisher.class);

    private final SplitEnumeratorContext<ChannelSplit> context;
    private final CheckpointCommits commits;
    private final TunnelConnection connection;
    private final String tunnelId;
    private final Runnable onFinishesPushed;

    CommitPublisher(
            SplitEnumeratorContext<ChannelSplit> context,
            CheckpointCommits commits,
            TunnelConnection connection,
            Runnable onFinishesPushed) {
        this.context = context;
        this.commits = commits;
        this.connection = connection;
        this.tunnelId = connection.tunnel().tunnelId();
        this.onFinishesPushed = onFinishesPushed;
    }

    /** Pushes what is committed and the server lacks; after finishes, heartbeats at once. */
    void push() {
        ServerCommitPlan plan = commits.planPush(tunnelId);
        if (plan.isEmpty()) {
            return;
        }
        context.callAsync(
                () -> {
                    connection.consumer().push(plan);
                    return plan;
                },
                (pushed, error) -> onPushed(plan, error));
    }

    /** What to push now that the server lacks; empty when nothing. */
    ServerCommitPlan planPush() {
        return commits.planPush(tunnelId);
    }

    /** The outcome of pushing {@code plan}, on the coordinator thread. */
    void onPushed(ServerCommitPlan plan, Throwable error) {
        if (error != null) {
            OwnershipLoss.rethrow(error); // a job that lost its lease stops, without restarts
            // The consumer recorded the plan failed: it is planned again with the next commit.
            LOG.warn(
                    "Could not push positions of {} and finished channels {} to the tunnel"
                            + " server; pushing again after the next checkpoint: {}",
                    plan.positions().keySet(),
                    plan.finishes(),
                    error.getMessage());
        } else if (!plan.finishes().isEmpty()) {
            LOG.info("Pushed finished channels {} to the tunnel server", plan.finishes());
            onFinishesPushed.run();
        }
    }

    /**
     * Writes the committed positions to the meta table under a fresh batch token, unless nothing
     * changed since the last write (an idle stream adds no rows, invariant 7). Readers report the
     * positions of checkpoint N right after it completes, so the snapshot of N holds, per channel,
     * the newest position known committed: N's or an earlier checkpoint's.
     */
    void writeMeta(long checkpointId) {
        Optional<CheckpointCommits.MetaWrite> write = commits.metaWrite(tunnelId);
        write.ifPresent(
                w ->
                        context.callAsync(
                                () -> {
                                    connection
                                            .consumer()
                                            .writeSnapshot(
                                                    w.snapshot(), checkpointId, w.adoptions());
                                    return w;
                                },
                                (written, error) -> {
                                    if (error == null) {
                                        commits.metaWritten(written);
                                        return;
                                    }
                                    OwnershipLoss.rethrow(error);
                                    if (connection.consumer().isClosed()) {
                                        LOG.info(
                                                "Checkpoint {} was not written to meta table {}:"
                                                        + " the source stopped first",
                                                checkpointId,
                                                connection.consumer().metaTableName());
                                        return;
                                    }
                                    LOG.warn(
                                            "Could not write checkpoint {} to meta table {}; the"
                                                    + " next checkpoint writes newer positions: {}",
                                            checkpointId,
                                            connection.consumer().metaTableName(),
                                            error.getMessage());
                                }));
    }
}
