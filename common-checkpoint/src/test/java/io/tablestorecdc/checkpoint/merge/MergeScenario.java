package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.gate.HoldReason;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** One row of the merge table: given a snapshot and a listing, what the next batch reads. */
final class MergeScenario {

    final String name;
    TunnelType tunnelType = TunnelType.STREAM;
    VanishedChannelPolicy policy = VanishedChannelPolicy.FAIL;
    ServerAheadPolicy onServerAhead = ServerAheadPolicy.FAIL;
    Optional<BatchSnapshot> committed = Optional.empty();
    final List<ServerChannel> listing = new ArrayList<>();
    final Map<String, ChannelPosition> checkpoints = new HashMap<>();
    final Map<String, ChannelPosition> history = new HashMap<>();

    final Set<String> readable = new TreeSet<>();
    final Map<String, HoldReason> held = new TreeMap<>();
    final Map<String, ChannelPosition> positions = new TreeMap<>();
    final Set<String> adopted = new TreeSet<>();
    final Set<String> vanished = new TreeSet<>();
    final Set<String> ahead = new TreeSet<>();
    final Set<String> skipped = new TreeSet<>();

    private MergeScenario(String name) {
        this.name = name;
    }

    static MergeScenario scenario(String name) {
        return new MergeScenario(name);
    }

    MergeScenario tunnel(TunnelType type) {
        this.tunnelType = type;
        return this;
    }

    MergeScenario onVanished(VanishedChannelPolicy p) {
        this.policy = p;
        return this;
    }

    MergeScenario committed(ChannelCheckpoint... entries) {
        this.committed = Optional.of(Channels.snapshot(entries));
        return this;
    }

    MergeScenario listing(ServerChannel... channels) {
        listing.addAll(List.of(channels));
        return this;
    }

    MergeScenario serverCheckpoint(String id, String token) {
        checkpoints.put(id, ChannelPosition.at(token));
        return this;
    }

    MergeScenario adoptedBefore(String id, String token) {
        history.put(id, ChannelPosition.at(token));
        return this;
    }

    MergeScenario readable(String... ids) {
        readable.addAll(List.of(ids));
        return this;
    }

    MergeScenario held(String id, HoldReason reason) {
        held.put(id, reason);
        return this;
    }

    MergeScenario startsAt(String id, ChannelPosition position) {
        positions.put(id, position);
        return this;
    }

    MergeScenario adopted(String... ids) {
        adopted.addAll(List.of(ids));
        return this;
    }

    MergeScenario vanished(String... ids) {
        vanished.addAll(List.of(ids));
        return this;
    }

    MergeScenario onServerAhead(ServerAheadPolicy p) {
        this.onServerAhead = p;
        return this;
    }

    MergeScenario skipped(String... ids) {
        skipped.addAll(List.of(ids));
        return this;
    }

    MergeScenario serverAhead(String... ids) {
        ahead.addAll(List.of(ids));
        return this;
    }

    MergeResult run() {
        return new CheckpointMerger(
                        Channels.TUNNEL,
                        tunnelType,
                        Optional.of(Channels.CLIENT),
                        policy,
                        onServerAhead)
                .merge(
                        committed,
                        listing,
                        ServerCheckpoints.of(checkpoints),
                        AdoptionHistory.of(history));
    }

    @Override
    public String toString() {
        return name;
    }
}
