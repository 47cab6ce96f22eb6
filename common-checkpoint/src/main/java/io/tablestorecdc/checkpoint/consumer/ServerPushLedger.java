package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a consumer has pushed to the tunnel server and what it pushes next (invariant 3), for both
 * engines: the finish ledger from "in a committed state" to "acknowledged by the server".
 *
 * <p>Every push is planned from a committed state ({@link ServerCommitPlan}): a Spark batch
 * committed to the meta table and the checkpoint location, or the positions of a completed Flink
 * checkpoint. A plan is in flight from {@link #plan} until {@link #acknowledged} or {@link
 * #failed}; later plans count it as pushed, so two plans never push one finish twice at once, and a
 * failed plan's pushes return to the next plan. After a restart nothing is known to be pushed
 * except what the server's listing shows terminated, and the finishes of the restored state that
 * the server does not show are {@linkplain #owe owed}: a push lost in a crash between the commit
 * and the push is made again. Rounds of acknowledged finishes are counted so that a consumer can
 * tell when a heartbeat and a listing have followed every finish (the server opens children only
 * then). Thread-safe.
 */
@Internal
public final class ServerPushLedger {

    private Map<String, ChannelPosition> acknowledged = Map.of();
    private final List<ServerCommitPlan> inFlight = new ArrayList<>();
    private final Set<String> owed = new TreeSet<>();
    private int finishRounds;

    /**
     * A restored consumer's finished channels: those the server lists {@code TERMINATED} or no
     * longer lists need no push; the others are owed.
     */
    public synchronized void restoredFinishes(
            Collection<String> finished, Collection<ServerChannel> listing) {
        Set<String> open = new TreeSet<>();
        listing.stream()
                .filter(c -> c.status() != ServerChannelStatus.TERMINATED)
                .forEach(c -> open.add(c.channelId()));
        Map<String, ChannelPosition> next = new TreeMap<>(acknowledged);
        for (String id : finished) {
            if (open.contains(id)) {
                owed.add(id);
            } else {
                next.put(id, ChannelPosition.finished());
            }
        }
        acknowledged = Collections.unmodifiableMap(next);
    }

    /**
     * A finish this consumer owes the server whatever its committed entry says of the channel's
     * adoption (a channel reported finished that the consumer never adopted). It is pushed once the
     * committed state holds the channel finished.
     */
    public synchronized void owe(String channelId) {
        if (!finishAcknowledged(channelId)) {
            owed.add(channelId);
        }
    }

    /**
     * Plans the pushes for {@code committed}, counting plans in flight as pushed, and marks the
     * plan in flight; an empty plan is not.
     */
    public synchronized ServerCommitPlan plan(BatchSnapshot committed) {
        ServerCommitPlan plan = preview(committed);
        if (!plan.isEmpty()) {
            inFlight.add(plan);
        }
        return plan;
    }

    /** What {@link #plan} would plan now, without marking anything in flight. */
    public synchronized ServerCommitPlan preview(BatchSnapshot committed) {
        Map<String, ChannelPosition> assumed = acknowledged;
        for (ServerCommitPlan plan : inFlight) {
            assumed = plan.pushedAfter(assumed);
        }
        return ServerCommitPlan.forCommitted(committed, assumed, owed);
    }

    /** Every push of {@code plan} was acknowledged by the server. */
    public synchronized void acknowledged(ServerCommitPlan plan) {
        inFlight.remove(plan);
        acknowledged = plan.pushedAfter(acknowledged);
        owed.removeAll(plan.finishes());
        if (!plan.finishes().isEmpty()) {
            finishRounds++;
        }
    }

    /** A push of {@code plan} failed: what it held is planned again next time. */
    public synchronized void failed(ServerCommitPlan plan) {
        inFlight.remove(plan);
    }

    /** Whether the server acknowledged {@code channelId}'s finish (or listed it terminated). */
    public synchronized boolean finishAcknowledged(String channelId) {
        ChannelPosition pushed = acknowledged.get(channelId);
        return pushed != null && pushed.isFinished();
    }

    /** Whether a finish is owed or in flight: the server may not know every finish yet. */
    public synchronized boolean finishesOutstanding() {
        return !owed.isEmpty() || inFlight.stream().anyMatch(p -> !p.finishes().isEmpty());
    }

    /** How many acknowledged plans held finishes; grows by one per such plan. */
    public synchronized int finishRounds() {
        return finishRounds;
    }
}
