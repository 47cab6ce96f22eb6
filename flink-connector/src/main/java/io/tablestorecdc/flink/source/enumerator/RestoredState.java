package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.Engine;
import io.tablestorecdc.checkpoint.merge.CheckpointMerger;
import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.UnreadableChannel;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A restored job's state checked against the server's (docs/exactly-once.md, "Restoring from older
 * state"): a state older than the server's may hold changes the server can no longer serve (the
 * core's rule, {@link CheckpointMerger#unreadable}).
 */
@Internal
final class RestoredState {

    private static final Logger LOG = LoggerFactory.getLogger(RestoredState.class);

    private RestoredState() {}

    /**
     * Fails before anything is read, or with {@code on.server.ahead=skip} ends the unreadable
     * channels as finished here (committed finished, nothing pushed: the server has them) and
     * returns them for every reader to end unread.
     *
     * @throws ServerAheadException under {@code fail}, after closing {@code connection} (so every
     *     attempt fails the same way at once, its lease released)
     */
    static Set<String> skipUnreadable(
            TablestoreCdcSourceConfig config,
            SplitTracker splits,
            CheckpointCommits commits,
            TunnelConnection connection,
            Optional<Long> restoredFrom,
            List<ServerChannel> listing) {
        List<UnreadableChannel> unreadable =
                CheckpointMerger.unreadable(
                        splits.entries(), listing, connection.adoptionHistory());
        if (unreadable.isEmpty()) {
            return Set.of();
        }
        if (config.settings().onServerAhead() == ServerAheadPolicy.FAIL) {
            connection.close();
            throw new ServerAheadException(connection.tunnel().tunnelId(), unreadable)
                    .withContext(
                            Engine.FLINK,
                            "tunnel '"
                                    + config.tunnelName()
                                    + "' of table '"
                                    + config.tableName()
                                    + "'",
                            restoredFrom
                                    .map(id -> "Flink checkpoint or savepoint " + id)
                                    .orElse("a Flink checkpoint or savepoint"));
        }
        Set<String> ids = new TreeSet<>();
        for (UnreadableChannel channel : unreadable) {
            LOG.warn(
                    "Skipping changes the tunnel server can no longer serve ({}=skip): {}",
                    ServerAheadPolicy.OPTION_KEY,
                    channel.describe());
            ids.add(channel.channelId());
            if (splits.isKnown(channel.channelId())) {
                splits.finish(channel.channelId());
                commits.skipped(channel.channelId());
            }
        }
        return Set.copyOf(ids);
    }
}
