package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.gate.GateDecision;
import io.tablestorecdc.checkpoint.gate.HoldReason;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The outcome of merging the committed meta snapshot with the server's channel listing: the start
 * state of the next batch and what it may read.
 *
 * @param tunnelId the tunnel the entries belong to
 * @param entries one entry per known channel, tombstones included (invariant 6), carried forward
 *     with no records read yet; the next batch's snapshot starts from these
 * @param gate which entries the next batch reads and why the others are held
 * @param adopted channels new to this consumer, added in this merge
 * @param vanished unfinished channels the server no longer lists (kept, never dropped)
 * @param serverAhead channels whose server checkpoint is ahead of the engine's and that the server
 *     can still serve; the engine wins and they are read again
 * @param skipped channels whose changes could not be read any more and were skipped (only under
 *     {@link ServerAheadPolicy#SKIP}; their entries are tombstones)
 */
@Internal
public record MergeResult(
        String tunnelId,
        Map<String, ChannelCheckpoint> entries,
        GateDecision gate,
        Set<String> adopted,
        Set<String> vanished,
        List<ServerAhead> serverAhead,
        List<UnreadableChannel> skipped) {

    public MergeResult {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(gate, "gate");
        entries = Collections.unmodifiableSortedMap(new TreeMap<>(entries));
        adopted = Collections.unmodifiableSortedSet(new TreeSet<>(adopted));
        vanished = Collections.unmodifiableSortedSet(new TreeSet<>(vanished));
        serverAhead = List.copyOf(serverAhead);
        skipped = List.copyOf(skipped);
    }

    /** Ids of the channels the next batch reads. */
    public Set<String> readable() {
        return gate.readable();
    }

    /** Unfinished channels the next batch does not read, with the reason. */
    public Map<String, HoldReason> held() {
        return gate.held();
    }

    /** The entries of the readable channels: where each read starts. */
    public List<ChannelCheckpoint> readableEntries() {
        List<ChannelCheckpoint> out = new ArrayList<>();
        gate.readable().forEach(id -> out.add(entries.get(id)));
        return out;
    }

    /** The entries as a snapshot under {@code token}, e.g. the seed of a first batch. */
    public BatchSnapshot snapshotFor(BatchToken token) {
        return new BatchSnapshot(tunnelId, token, entries);
    }

    /**
     * True when every known channel is finished and the server offers nothing else: a bounded
     * source (a BaseData tunnel, or a stream with an end offset) is complete.
     */
    public boolean everyChannelFinished() {
        return !entries.isEmpty()
                && gate.held().isEmpty()
                && entries.values().stream().allMatch(ChannelCheckpoint::isFinished);
    }

    /** One log line per condition a user should know about; empty when all is normal. */
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        if (!vanished.isEmpty()) {
            out.add(
                    "Tunnel "
                            + tunnelId
                            + " no longer lists unfinished channel(s) "
                            + vanished
                            + "; kept as unread entries because "
                            + VanishedChannelPolicy.OPTION_KEY
                            + "=warn");
        }
        serverAhead.forEach(a -> out.add(a.message()));
        return out;
    }
}
