package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Hands a tunnel's channels to its clients during one heartbeat. Every live client gets a fair
 * share, {@code ceil(active channels / clients)}: free channels go to a client below its share;
 * when no channel is free and some other client is below its share, a client above its share is
 * told to give the surplus back (CLOSING). Works on the tunnel under the caller's lock.
 */
final class ChannelScheduler {

    private final Tunnel tunnel;
    private final Predicate<TunnelChannel> ready;

    ChannelScheduler(Tunnel tunnel, Predicate<TunnelChannel> ready) {
        this.tunnel = tunnel;
        this.ready = ready;
    }

    /** Gives the client free channels up to its share, skipping the excluded ones. */
    void assign(String clientId, Set<String> excluded) {
        int share = fairShare();
        int held = activeHeldBy(clientId);
        for (TunnelChannel c : free()) {
            if (held >= share) {
                return;
            }
            if (!excluded.contains(c.id())) {
                c.assignTo(clientId);
                held++;
            }
        }
    }

    /** Asks the client to give back channels above its share when another client starves. */
    void rebalance(String clientId) {
        int share = fairShare();
        int surplus = activeHeldBy(clientId) - share - closingHeldBy(clientId);
        if (surplus <= 0 || !free().isEmpty() || !someoneStarves(clientId, share)) {
            return;
        }
        for (TunnelChannel c : tunnel.channels()) {
            if (surplus > 0 && isActiveHeld(c, clientId) && !c.isClosing()) {
                c.requestClose();
                surplus--;
            }
        }
    }

    /** The heartbeat response: every channel the client holds, OPEN or CLOSING. */
    List<TunnelServiceApi.Channel> held(String clientId) {
        List<TunnelServiceApi.Channel> out = new ArrayList<>();
        for (TunnelChannel c : tunnel.channels()) {
            if (c.isOwnedBy(clientId)) {
                out.add(
                        TunnelServiceApi.Channel.newBuilder()
                                .setChannelId(c.id())
                                .setVersion(c.version())
                                .setStatus(
                                        c.isClosing()
                                                ? TunnelServiceApi.ChannelStatus.CLOSING
                                                : TunnelServiceApi.ChannelStatus.OPEN)
                                .build());
            }
        }
        return out;
    }

    private int fairShare() {
        long active = tunnel.channels().stream().filter(this::isActive).count();
        int clients = Math.max(1, tunnel.clients().size());
        return (int) ((active + clients - 1) / clients);
    }

    private boolean someoneStarves(String clientId, int share) {
        return tunnel.clients().stream()
                .anyMatch(c -> !c.id().equals(clientId) && activeHeldBy(c.id()) < share);
    }

    private List<TunnelChannel> free() {
        List<TunnelChannel> free = new ArrayList<>();
        for (TunnelChannel c : tunnel.channels()) {
            if (isActive(c) && c.owner().isEmpty()) {
                free.add(c);
            }
        }
        return free;
    }

    private boolean isActive(TunnelChannel c) {
        return !c.isFinished() && ready.test(c);
    }

    private boolean isActiveHeld(TunnelChannel c, String clientId) {
        return c.isOwnedBy(clientId) && !c.isFinished();
    }

    private int activeHeldBy(String clientId) {
        return (int) tunnel.channels().stream().filter(c -> isActiveHeld(c, clientId)).count();
    }

    private int closingHeldBy(String clientId) {
        return (int)
                tunnel.channels().stream()
                        .filter(c -> isActiveHeld(c, clientId) && c.isClosing())
                        .count();
    }
}
