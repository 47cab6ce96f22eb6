package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.merge.CheckpointMerger;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.ServerCheckpoints;
import io.tablestorecdc.checkpoint.merge.UnreadableChannel;
import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's merge of its last committed snapshot with the server's listing into the start of the
 * next batch (invariants 4, 5 and 6), for an engine that plans batches from committed snapshots:
 * which adoption history applies, where adopted channels start, the error under {@code
 * on.server.ahead=fail} in the engine's words, the warnings, and the adoptions recorded.
 */
final class CommittedMerge {

    private static final Logger LOG = LoggerFactory.getLogger(CommittedMerge.class);

    private final TunnelConsumer consumer;
    private final Optional<Executor> requests;
    private final Set<String> skippedLogged = new TreeSet<>();

    CommittedMerge(TunnelConsumer consumer, Optional<Executor> requests) {
        this.consumer = consumer;
        this.requests = requests;
    }

    MergeResult merge(
            Optional<BatchSnapshot> committed,
            List<ServerChannel> listed,
            VanishedChannelPolicy onVanished,
            ServerAheadPolicy onServerAhead) {
        // A first start takes over where the server stands (a new checkpoint location continues
        // where the last consumer stopped); later merges go back to this consumer's adoptions.
        AdoptionHistory history =
                committed.isPresent() ? consumer.adoptionHistory() : AdoptionHistory.none();
        CheckpointMerger merger =
                new CheckpointMerger(
                        consumer.tunnelId(),
                        consumer.tunnel().type(),
                        Optional.of(consumer.clientId().clientId()),
                        onVanished,
                        onServerAhead);
        MergeResult result;
        try {
            result = merger.merge(committed, listed, serverCheckpoints(committed, listed), history);
        } catch (ServerAheadException e) {
            Engine engine = consumer.engine();
            throw e.withContext(
                    engine,
                    "tunnel '"
                            + consumer.tunnel().tunnelName()
                            + "' of table '"
                            + consumer.tableName()
                            + "'",
                    engine.state()
                            + " "
                            + consumer.consumerId()
                            + ", whose last committed batch starts at meta snapshot "
                            + committed.map(c -> c.token().toString()).orElse("(none)"));
        }
        result.warnings().forEach(LOG::warn);
        logSkippedOnce(result);
        consumer.recordAdoptions(
                result.adopted().stream().map(id -> result.entries().get(id)).toList());
        return result;
    }

    /**
     * Under {@code on.server.ahead=skip}, each skipped channel is logged once per run and counted;
     * later merges see it again until a batch commits its tombstone.
     */
    private synchronized void logSkippedOnce(MergeResult result) {
        for (UnreadableChannel channel : result.skipped()) {
            if (skippedLogged.add(channel.channelId())) {
                LOG.warn(
                        "Skipping changes the tunnel server can no longer serve ({}=skip): {}",
                        ServerAheadPolicy.OPTION_KEY,
                        channel.describe());
            }
        }
    }

    synchronized int channelsSkippedOnServerAhead() {
        return skippedLogged.size();
    }

    /**
     * A first start adopts every channel at its server checkpoint: those are fetched at once when
     * the consumer has a request executor (one request per channel; one after another they took
     * most of a first batch with many channels). Later merges look up only the few channels they
     * adopt.
     */
    private ServerCheckpoints serverCheckpoints(
            Optional<BatchSnapshot> committed, List<ServerChannel> channels) {
        if (committed.isPresent() || requests.isEmpty()) {
            return consumer::serverCheckpoint;
        }
        Map<String, CompletableFuture<Optional<ChannelPosition>>> fetching = new HashMap<>();
        for (ServerChannel channel : channels) {
            String id = channel.channelId();
            fetching.put(
                    id,
                    CompletableFuture.supplyAsync(
                            () -> consumer.serverCheckpoint(id), requests.get()));
        }
        return id ->
                fetching.containsKey(id)
                        ? TunnelConsumer.joined(fetching.get(id))
                        : consumer.serverCheckpoint(id);
    }
}
