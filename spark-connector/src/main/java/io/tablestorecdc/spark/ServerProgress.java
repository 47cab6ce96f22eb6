package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes the positions of durably committed batches to the tunnel server (invariant 3): progress
 * the Tablestore console shows, and the {@code finished} that lets the server open children.
 *
 * <p>Only for visibility and lineage: correctness never depends on a push having happened. A failed
 * push is retried with the next committed batch, which re-plans from what was acknowledged.
 */
final class ServerProgress {

    private static final Logger LOG = LoggerFactory.getLogger(ServerProgress.class);

    private final SourceConnection connection;
    private Map<String, ChannelPosition> pushed = Map.of();
    private Optional<BatchToken> lastPushed = Optional.empty();

    ServerProgress(SourceConnection connection) {
        this.connection = connection;
    }

    /** Pushes {@code committed}, which the engine has durably committed. Idempotent per token. */
    synchronized void push(BatchSnapshot committed) {
        if (lastPushed.equals(Optional.of(committed.token()))) {
            return;
        }
        ServerCommitPlan plan = ServerCommitPlan.forCommitted(committed, pushed);
        try {
            plan.positions().forEach(connection.session()::checkpoint);
            plan.finishes()
                    .forEach(id -> connection.session().checkpoint(id, ChannelPosition.finished()));
        } catch (TunnelException e) {
            if (e.stopsClient()) {
                throw e;
            }
            LOG.warn(
                    "Could not push the progress of batch {} to the tunnel server; retrying with"
                            + " the next batch: {}",
                    committed.token(),
                    e.getMessage());
            return;
        }
        if (!plan.finishes().isEmpty()) {
            connection.markFinished(plan.finishes());
            // Report TERMINATED now rather than at the next scheduled heartbeat: children open
            // sooner.
            connection.session().heartbeatOnce();
        }
        pushed = plan.pushedAfter(pushed);
        lastPushed = Optional.of(committed.token());
    }
}
