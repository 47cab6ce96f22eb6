package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.gate.GateDecision;
import io.tablestorecdc.checkpoint.gate.ParentChildGate;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Merges the last committed meta snapshot with the tunnel server's channel listing into the start
 * state of the next batch (invariants 5 and 6). A pure function: it reads nothing and logs nothing;
 * the {@link MergeResult} carries the warnings.
 *
 * <p>Rules, per channel id in snapshot ∪ listing:
 *
 * <ul>
 *   <li>In the snapshot: the snapshot wins (it is engine-committed), whatever the server says. A
 *       finished entry stays a tombstone and is never read. An unfinished one the server no longer
 *       lists has vanished: an error under {@link VanishedChannelPolicy#FAIL}, kept and reported
 *       under {@code WARN}. An unfinished one the server lists {@code TERMINATED} cannot be read
 *       again (the engine was restored from older state): see below.
 *   <li>Only on the server: adopted, at the position recorded in the {@link AdoptionHistory} if
 *       this consumer adopted it before (never past the engine's committed state; a server
 *       checkpoint ahead of it is reported as {@link ServerAhead} and the channel is read again
 *       from there), otherwise at the server's checkpoint. A channel the server lists {@code
 *       TERMINATED} that this consumer never adopted is history from before it and becomes a
 *       tombstone; one it adopted before cannot be read again. A {@code WAIT} channel for which the
 *       server has no checkpoint yet is adopted later, when it has one.
 *   <li>Unreadable changes (the state older than the server's, see {@link ServerAheadPolicy}):
 *       under {@code FAIL} the merge throws {@link ServerAheadException} naming every such channel
 *       before anything is read; under {@code SKIP} each becomes a tombstone adopted finished
 *       (nothing is pushed for it) and is reported in {@link MergeResult#skipped()}.
 * </ul>
 *
 * @param tunnelId the id of the tunnel being read
 * @param tunnelType its type (for the BaseAndStream stage gate)
 * @param clientId this consumer's tunnel client id, when connected
 * @param onVanished what to do with vanished channels
 */
@Internal
public record CheckpointMerger(
        String tunnelId,
        TunnelType tunnelType,
        Optional<String> clientId,
        VanishedChannelPolicy onVanished,
        ServerAheadPolicy onServerAhead) {

    public CheckpointMerger {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(tunnelType, "tunnelType");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(onVanished, "onVanished");
        Objects.requireNonNull(onServerAhead, "onServerAhead");
    }

    /** A merger that fails on unreadable changes ({@link ServerAheadPolicy#FAIL}). */
    public CheckpointMerger(
            String tunnelId,
            TunnelType tunnelType,
            Optional<String> clientId,
            VanishedChannelPolicy onVanished) {
        this(tunnelId, tunnelType, clientId, onVanished, ServerAheadPolicy.FAIL);
    }

    /** Merges with no adoption history (every channel absent from the snapshot is new). */
    public MergeResult merge(
            Optional<BatchSnapshot> committed,
            List<ServerChannel> listing,
            ServerCheckpoints checkpoints) {
        return merge(committed, listing, checkpoints, AdoptionHistory.none());
    }

    /**
     * Merges the last committed snapshot (empty on a first start) with the server listing.
     *
     * @throws ForeignSnapshotException if the snapshot belongs to another tunnel id
     * @throws VanishedChannelException if unfinished channels vanished under policy FAIL
     * @throws ServerAheadException if changes cannot be read any more, under policy FAIL
     * @throws IllegalStateException if the server lists a readable channel with no checkpoint
     */
    public MergeResult merge(
            Optional<BatchSnapshot> committed,
            List<ServerChannel> listing,
            ServerCheckpoints checkpoints,
            AdoptionHistory history) {
        committed.ifPresent(this::requireSameTunnel);
        Map<String, ServerChannel> listed = byId(listing);
        Map<String, ChannelCheckpoint> entries = new TreeMap<>();
        Set<String> vanished = new HashSet<>();
        List<ServerAhead> ahead = new ArrayList<>();
        List<UnreadableChannel> unreadable =
                committed.map(s -> unreadable(s.channels(), listing, history)).orElse(List.of());
        committed.ifPresent(s -> carryForward(s, listed, entries, vanished));
        if (!vanished.isEmpty() && onVanished == VanishedChannelPolicy.FAIL) {
            throw new VanishedChannelException(tunnelId, committed.get().token(), vanished);
        }
        Set<String> adopted = adoptNew(listed, entries, checkpoints, history, ahead);
        if (!unreadable.isEmpty() && onServerAhead == ServerAheadPolicy.FAIL) {
            throw new ServerAheadException(tunnelId, unreadable);
        }
        unreadable.forEach(u -> entries.put(u.channelId(), skipped(entries, listed, u)));
        GateDecision gate = new ParentChildGate(tunnelType, clientId).decide(entries, listed);
        return new MergeResult(tunnelId, entries, gate, adopted, vanished, ahead, unreadable);
    }

    /** The server's state adopted for an unreadable channel: a tombstone, nothing to push. */
    private static ChannelCheckpoint skipped(
            Map<String, ChannelCheckpoint> entries,
            Map<String, ServerChannel> listed,
            UnreadableChannel channel) {
        ChannelCheckpoint known = entries.get(channel.channelId());
        return ChannelCheckpoint.adopted(
                channel.channelId(),
                known != null ? known.type() : listed.get(channel.channelId()).type(),
                ChannelPosition.finished());
    }

    /**
     * The changes a consumer's state has not delivered and the server can no longer serve, the rule
     * of {@link ServerAheadPolicy}, for either engine: a channel the state holds unfinished that
     * the server lists {@code TERMINATED}; and a channel the state does not hold that this consumer
     * adopted before (a later run read it: the meta table's adoption records say so) and the server
     * lists {@code TERMINATED}. A terminated channel this consumer never adopted is history from
     * before it, and one adopted already finished held nothing to read.
     *
     * @param state the engine's committed entries (a meta snapshot's, or a restored Flink state's)
     */
    public static List<UnreadableChannel> unreadable(
            Map<String, ChannelCheckpoint> state,
            List<ServerChannel> listing,
            AdoptionHistory history) {
        List<UnreadableChannel> out = new ArrayList<>();
        for (ServerChannel channel : listing) {
            if (channel.status() != ServerChannelStatus.TERMINATED) {
                continue;
            }
            String id = channel.channelId();
            ChannelCheckpoint entry = state.get(id);
            if (entry != null) {
                if (!entry.isFinished()) {
                    out.add(new UnreadableChannel(id, Optional.of(entry.position()), true));
                }
            } else {
                history.firstAdoptedAt(id)
                        .filter(p -> !p.isFinished())
                        .ifPresent(p -> out.add(new UnreadableChannel(id, Optional.of(p), false)));
            }
        }
        return out;
    }

    private void requireSameTunnel(BatchSnapshot snapshot) {
        if (!snapshot.tunnelId().equals(tunnelId)) {
            throw new ForeignSnapshotException(snapshot.tunnelId(), tunnelId, snapshot.token());
        }
    }

    private static void carryForward(
            BatchSnapshot snapshot,
            Map<String, ServerChannel> listed,
            Map<String, ChannelCheckpoint> entries,
            Set<String> vanished) {
        for (ChannelCheckpoint entry : snapshot.channels().values()) {
            entries.put(entry.channelId(), entry.carriedForward());
            if (entry.isFinished()) {
                continue;
            }
            if (!listed.containsKey(entry.channelId())) {
                vanished.add(entry.channelId());
            }
        }
    }

    /** Adds the listed channels the snapshot lacks; returns their ids. */
    private static Set<String> adoptNew(
            Map<String, ServerChannel> listed,
            Map<String, ChannelCheckpoint> entries,
            ServerCheckpoints checkpoints,
            AdoptionHistory history,
            List<ServerAhead> ahead) {
        Set<String> adopted = new HashSet<>();
        for (ServerChannel channel : listed.values()) {
            if (!entries.containsKey(channel.channelId())) {
                Optional<ChannelCheckpoint> entry = adopt(channel, checkpoints, history, ahead);
                entry.ifPresent(e -> entries.put(e.channelId(), e));
                entry.ifPresent(e -> adopted.add(e.channelId()));
            }
        }
        return adopted;
    }

    private static Optional<ChannelCheckpoint> adopt(
            ServerChannel channel,
            ServerCheckpoints checkpoints,
            AdoptionHistory history,
            List<ServerAhead> ahead) {
        String id = channel.channelId();
        Optional<ChannelPosition> earlier = history.firstAdoptedAt(id);
        if (earlier.isPresent() && channel.status() == ServerChannelStatus.TERMINATED) {
            // Finished on the server since this consumer adopted it: see unreadable().
            return Optional.of(
                    ChannelCheckpoint.adopted(id, channel.type(), ChannelPosition.finished()));
        }
        if (earlier.isPresent()) {
            readopt(channel, earlier.get(), checkpoints).ifPresent(ahead::add);
            return Optional.of(ChannelCheckpoint.adopted(id, channel.type(), earlier.get()));
        }
        if (channel.status() == ServerChannelStatus.TERMINATED) {
            // Finished before this consumer ever saw it (history before the job started).
            return Optional.of(
                    ChannelCheckpoint.adopted(id, channel.type(), ChannelPosition.finished()));
        }
        Optional<ChannelPosition> start = checkpoints.checkpointOf(id);
        if (start.isEmpty() && channel.status() != ServerChannelStatus.WAIT) {
            throw new IllegalStateException(
                    "The tunnel server lists channel "
                            + id
                            + " as "
                            + channel.status()
                            + " but returned no checkpoint for it, so there is no position to"
                            + " start it from; retry, and if it persists check the tunnel's state"
                            + " in the Tablestore console");
        }
        return start.map(p -> ChannelCheckpoint.adopted(id, channel.type(), p));
    }

    /**
     * A channel this consumer adopted before but the committed snapshot lacks, that the server can
     * still serve: an uncommitted batch adopted it, or the engine was restored from older state.
     * Only the second moves the server past the adoption position, which is worth a warning; the
     * channel is read again from the adoption position.
     */
    private static Optional<ServerAhead> readopt(
            ServerChannel channel, ChannelPosition earlier, ServerCheckpoints checkpoints) {
        return checkpoints
                .checkpointOf(channel.channelId())
                .filter(server -> !server.equals(earlier))
                .map(s -> new ServerAhead(channel.channelId(), earlier, "checkpoint " + s));
    }

    private static Map<String, ServerChannel> byId(List<ServerChannel> listing) {
        Map<String, ServerChannel> out = new TreeMap<>();
        for (ServerChannel channel : listing) {
            if (out.put(channel.channelId(), channel) != null) {
                throw new IllegalArgumentException(
                        "The server listing names channel " + channel.channelId() + " twice");
            }
        }
        return out;
    }
}
