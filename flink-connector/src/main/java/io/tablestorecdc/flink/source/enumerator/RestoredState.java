package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.merge.CheckpointMerger;
import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.UnreadableChannel;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.event.ServerFinishedCheck;
import java.util.ArrayList;
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
     * What a restore leaves to the readers: the channels skipped here, and those only the reader
     * holding them can judge.
     */
    record Outcome(Set<String> skipped, ServerFinishedCheck forReaders) {}

    /**
     * Fails before anything is read, or with {@code on.server.ahead=skip} ends the unreadable
     * channels as finished here (committed finished, nothing pushed: the server has them) and
     * returns them for every reader to end unread.
     *
     * <p>A channel the restored state holds <em>assigned</em> is judged by the reader that holds it
     * ({@link ServerFinishedCheck}): the enumerator's snapshot is taken before the readers', so the
     * reader's may hold the channel finished while the enumerator's does not. Its finish is
     * recorded as known to the server, so it is never pushed again.
     *
     * @throws ServerAheadException under {@code fail}, after closing {@code connection} (so every
     *     attempt fails the same way at once, its lease released)
     */
    static Outcome check(
            TablestoreCdcSourceConfig config,
            SplitTracker splits,
            CheckpointCommits commits,
            TunnelConnection connection,
            Optional<Long> restoredFrom,
            List<ServerChannel> listing) {
        List<UnreadableChannel> all =
                CheckpointMerger.unreadable(
                        splits.entries(), listing, connection.adoptionHistory());
        List<UnreadableChannel> unreadable = new ArrayList<>();
        Set<String> inReaders = new TreeSet<>();
        for (UnreadableChannel channel : all) {
            if (splits.assignedIds().contains(channel.channelId())) {
                inReaders.add(channel.channelId());
            } else {
                unreadable.add(channel);
            }
        }
        String tunnelId = connection.tunnel().tunnelId();
        String tunnel =
                "tunnel '" + config.tunnelName() + "' of table '" + config.tableName() + "'";
        String state =
                restoredFrom
                        .map(id -> "Flink checkpoint or savepoint " + id)
                        .orElse("a Flink checkpoint or savepoint");
        ServerFinishedCheck forReaders = ServerFinishedCheck.none();
        if (!inReaders.isEmpty()) {
            forReaders =
                    new ServerFinishedCheck(
                            inReaders, config.settings().onServerAhead(), tunnelId, tunnel, state);
            LOG.info(
                    "The tunnel server has finished channels {} that the restored state holds"
                            + " assigned: the readers holding them check their own state",
                    inReaders);
            commits.pushes().restoredFinishes(inReaders, listing); // listed terminated
        }
        if (unreadable.isEmpty()) {
            return new Outcome(Set.of(), forReaders);
        }
        if (config.settings().onServerAhead() == ServerAheadPolicy.FAIL) {
            connection.close();
            // Failing anyway: name the assigned ones too, as the state most likely holds them.
            throw new ServerAheadException(tunnelId, all).withContext(Engine.FLINK, tunnel, state);
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
        return new Outcome(Set.copyOf(ids), forReaders);
    }
}
