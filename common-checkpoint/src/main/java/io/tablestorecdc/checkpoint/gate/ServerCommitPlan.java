package io.tablestorecdc.checkpoint.gate;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What to push to the tunnel server after the engine has durably committed a batch (invariant 3).
 *
 * <p>Built only from a committed snapshot: a channel's {@code finished} is what lets the server
 * open its children, so it must never reach the server before the commit that holds the channel's
 * last record. Each finish is planned once per consumer run (channels already pushed finished are
 * skipped); planning again after a failed or partial push yields the same pushes, which the server
 * accepts again, so a retry is safe. After a restart nothing is known to be pushed and the plan
 * re-pushes the committed state, which is how a push lost in a crash between engine commit and
 * server push is recovered.
 *
 * @param token the committed batch token the plan was made from
 * @param positions unfinished channels to checkpoint at their committed position
 * @param finishes channels to checkpoint {@value ChannelPosition#FINISHED_TOKEN} and then report
 *     {@code TERMINATED} in the next heartbeat
 */
@Internal
public record ServerCommitPlan(
        BatchToken token,
        SortedMap<String, ChannelPosition> positions,
        SortedSet<String> finishes) {

    public ServerCommitPlan {
        Objects.requireNonNull(token, "token");
        positions = Collections.unmodifiableSortedMap(new TreeMap<>(positions));
        finishes = Collections.unmodifiableSortedSet(new TreeSet<>(finishes));
    }

    /**
     * Plans the pushes for {@code committed}, given what this consumer already pushed (channel id
     * to the last position the server acknowledged).
     */
    public static ServerCommitPlan forCommitted(
            BatchSnapshot committed, Map<String, ChannelPosition> alreadyPushed) {
        return forCommitted(committed, alreadyPushed, Set.of());
    }

    /**
     * Plans the pushes for {@code committed}, given what this consumer already pushed, and finishes
     * it owes the server whatever their entries say: a restored engine state whose finished
     * channels the server does not list terminated, so their finish may have been lost in a crash
     * between the commit and the push.
     */
    public static ServerCommitPlan forCommitted(
            BatchSnapshot committed,
            Map<String, ChannelPosition> alreadyPushed,
            Set<String> owedFinishes) {
        Map<String, ChannelPosition> positions = new HashMap<>();
        SortedSet<String> finishes = new TreeSet<>();
        for (ChannelCheckpoint entry : committed.channels().values()) {
            Optional<ChannelPosition> pushed =
                    Optional.ofNullable(alreadyPushed.get(entry.channelId()));
            boolean pushedFinished = pushed.map(ChannelPosition::isFinished).orElse(false);
            if (entry.isFinished()) {
                if (owedFinishes.contains(entry.channelId()) && !pushedFinished) {
                    finishes.add(entry.channelId());
                } else if (needsFinish(entry, pushed)) {
                    finishes.add(entry.channelId());
                }
            } else if (entry.lifecycle() == ChannelLifecycle.READING
                    && !pushed.equals(Optional.of(entry.position()))) {
                positions.put(entry.channelId(), entry.position());
            }
        }
        return new ServerCommitPlan(committed.token(), new TreeMap<>(positions), finishes);
    }

    /**
     * A channel adopted already finished (the server had terminated it before this consumer saw it)
     * needs no push; nor does one whose finish the server already acknowledged.
     */
    private static boolean needsFinish(ChannelCheckpoint entry, Optional<ChannelPosition> pushed) {
        return !entry.adoptedAt().isFinished()
                && !pushed.map(ChannelPosition::isFinished).orElse(false);
    }

    public boolean isEmpty() {
        return positions.isEmpty() && finishes.isEmpty();
    }

    /** What has been pushed once every push of this plan has been acknowledged. */
    public Map<String, ChannelPosition> pushedAfter(Map<String, ChannelPosition> alreadyPushed) {
        Map<String, ChannelPosition> next = new TreeMap<>(alreadyPushed);
        next.putAll(positions);
        finishes.forEach(id -> next.put(id, ChannelPosition.finished()));
        return Collections.unmodifiableMap(next);
    }
}
