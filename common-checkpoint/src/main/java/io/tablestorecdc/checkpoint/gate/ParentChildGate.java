package io.tablestorecdc.checkpoint.gate;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which channels a batch may read (invariant 4).
 *
 * <p>The wire protocol carries no parent ids, so lineage is the server's: it holds a child in
 * {@code WAIT} until every parent's {@code finished} has been pushed, and the client pushes that
 * only after the engine commit containing the parent's last record ({@link ServerCommitPlan}). The
 * gate's part is to read nothing the server has not opened to this client, never a finished
 * tombstone, and, for BaseAndStream tunnels, no stream channel while any base-data channel is
 * unfinished (channel types are on the wire, so this stage gate does not trust the server alone).
 *
 * <p>A channel the engine's state holds unfinished but the server lists {@code TERMINATED} (the
 * engine was restored from older state) never reaches the gate: the server never serves it again,
 * and {@link io.tablestorecdc.checkpoint.merge.CheckpointMerger#unreadable} stops the consumer
 * first or, under {@code on.server.ahead=skip}, turns it into a tombstone. Were one passed here, it
 * would be readable, so that the server's refusal to serve it names it rather than a silent hold.
 *
 * @param tunnelType the tunnel's type; only BaseAndStream has a stage gate
 * @param clientId this consumer's tunnel client id; when present, a channel the server assigned to
 *     another client is held
 */
@Internal
public record ParentChildGate(TunnelType tunnelType, Optional<String> clientId) {

    public ParentChildGate {
        Objects.requireNonNull(tunnelType, "tunnelType");
        Objects.requireNonNull(clientId, "clientId");
    }

    /**
     * Decides over the merged entries (this consumer's durable view) and the server listing. Listed
     * channels without an entry (not adopted yet) are held unless terminated.
     */
    public GateDecision decide(
            Map<String, ChannelCheckpoint> entries, Map<String, ServerChannel> listing) {
        boolean baseUnfinished =
                tunnelType == TunnelType.BASE_AND_STREAM && anyBaseUnfinished(entries, listing);
        Set<String> readable = new HashSet<>();
        Map<String, HoldReason> held = new HashMap<>();
        for (ChannelCheckpoint entry : entries.values()) {
            if (entry.isFinished()) {
                continue; // a tombstone is never read, whatever a stale listing says
            }
            Optional<HoldReason> reason =
                    holdReason(entry.type(), listing.get(entry.channelId()), baseUnfinished);
            reason.ifPresentOrElse(
                    r -> held.put(entry.channelId(), r), () -> readable.add(entry.channelId()));
        }
        for (ServerChannel channel : listing.values()) {
            if (!entries.containsKey(channel.channelId())
                    && channel.status() != ServerChannelStatus.TERMINATED) {
                held.put(channel.channelId(), unadoptedReason(channel));
            }
        }
        return new GateDecision(readable, held);
    }

    private Optional<HoldReason> holdReason(
            ChannelType type, ServerChannel listed, boolean baseUnfinished) {
        if (listed == null) {
            return Optional.of(HoldReason.NOT_LISTED);
        }
        if (listed.status() == ServerChannelStatus.WAIT) {
            return Optional.of(HoldReason.WAITING_ON_SERVER);
        }
        if (baseUnfinished && type == ChannelType.STREAM) {
            return Optional.of(HoldReason.BASE_DATA_UNFINISHED);
        }
        return switch (listed.status()) {
            case CLOSING, CLOSE -> Optional.of(HoldReason.NOT_OPEN);
            case OPEN ->
                    assignedElsewhere(listed)
                            ? Optional.of(HoldReason.ASSIGNED_TO_OTHER_CLIENT)
                            : Optional.empty();
            default -> Optional.empty(); // TERMINATED: see the class comment
        };
    }

    private static HoldReason unadoptedReason(ServerChannel channel) {
        return channel.status() == ServerChannelStatus.WAIT
                ? HoldReason.WAITING_ON_SERVER
                : HoldReason.NOT_ADOPTED;
    }

    private boolean assignedElsewhere(ServerChannel listed) {
        return clientId.isPresent()
                && listed.clientId().isPresent()
                && !listed.clientId().get().equals(clientId.get());
    }

    /**
     * A base channel is unfinished if this consumer's entry says so (meta wins), or, when it has no
     * entry yet, if the server does not list it terminated.
     */
    private static boolean anyBaseUnfinished(
            Map<String, ChannelCheckpoint> entries, Map<String, ServerChannel> listing) {
        boolean inMeta =
                entries.values().stream()
                        .anyMatch(e -> e.type() == ChannelType.BASE_DATA && !e.isFinished());
        boolean onServer =
                listing.values().stream()
                        .anyMatch(
                                c ->
                                        c.type() == ChannelType.BASE_DATA
                                                && !entries.containsKey(c.channelId())
                                                && c.status() != ServerChannelStatus.TERMINATED);
        return inMeta || onServer;
    }
}
