package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small tunnel server model for property tests: channels with parents, splits and merges that
 * seal the parents, and children held in WAIT until every parent's {@code finished} was pushed.
 * Positions are tokens {@code "<channel>:<offset>"}; records are numbered from 0 per channel.
 *
 * <p>Like a lagging server, it opens stream roots at once even in a BaseAndStream tunnel, so the
 * client's own stage gate is what keeps them unread until base data is finished.
 */
final class FakeTunnelServer {

    /** One channel's server-side state. */
    static final class Channel {
        final String id;
        final ChannelType type;
        final List<String> parents;
        int length;
        boolean sealed;

        /** Dropped from the listing, as a server eventually forgets terminated channels. */
        boolean purged;

        ServerChannelStatus status;
        ChannelPosition checkpoint;

        Channel(String id, ChannelType type, List<String> parents, ServerChannelStatus status) {
            this.id = id;
            this.type = type;
            this.parents = List.copyOf(parents);
            this.status = status;
            this.checkpoint = ChannelPosition.at(id + ":0");
        }
    }

    /** What one read returned: records {@code [from, to)} and where the next read starts. */
    record Read(String channelId, int from, int to, ChannelPosition next) {}

    private final Map<String, Channel> channels = new LinkedHashMap<>();
    private final List<String> violations = new ArrayList<>();
    private int nextChild;

    FakeTunnelServer(int baseChannels, int baseLength, int streamRoots) {
        for (int i = 0; i < baseChannels; i++) {
            Channel base =
                    add("base" + i, ChannelType.BASE_DATA, List.of(), ServerChannelStatus.OPEN);
            base.length = baseLength;
            base.sealed = true;
        }
        for (int i = 0; i < streamRoots; i++) {
            add("s" + i, ChannelType.STREAM, List.of(), ServerChannelStatus.OPEN);
        }
    }

    private Channel add(String id, ChannelType type, List<String> parents, ServerChannelStatus s) {
        Channel channel = new Channel(id, type, parents, s);
        channels.put(id, channel);
        return channel;
    }

    Map<String, Channel> channels() {
        return channels;
    }

    /** Protocol breaches the client committed against this server. */
    List<String> violations() {
        return violations;
    }

    List<ServerChannel> listing() {
        List<ServerChannel> out = new ArrayList<>();
        channels.values().stream()
                .filter(c -> !c.purged)
                .forEach(c -> out.add(ServerChannel.of(c.id, c.type, c.status)));
        return out;
    }

    /** The last pushed checkpoint; a new channel's is its first record. */
    Optional<ChannelPosition> checkpointOf(String id) {
        return Optional.ofNullable(channels.get(id)).filter(c -> !c.purged).map(c -> c.checkpoint);
    }

    /** Forgets terminated channels whose children are all open or done. */
    void purge() {
        for (Channel c : channels.values()) {
            if (c.status == ServerChannelStatus.TERMINATED && childrenReleased(c.id)) {
                c.purged = true;
            }
        }
    }

    private boolean childrenReleased(String parent) {
        return channels.values().stream()
                .filter(c -> c.parents.contains(parent))
                .allMatch(c -> c.status != ServerChannelStatus.WAIT);
    }

    void append(int pick, int records) {
        activeStreams().stream()
                .skip(pickIndex(pick))
                .findFirst()
                .ifPresent(c -> c.length += records);
    }

    void split(int pick) {
        activeStreams().stream()
                .skip(pickIndex(pick))
                .findFirst()
                .ifPresent(
                        p -> {
                            p.sealed = true;
                            child(List.of(p.id));
                            child(List.of(p.id));
                        });
    }

    void merge(int pick) {
        List<Channel> active = activeStreams();
        if (active.size() < 2) {
            return;
        }
        int i = pickIndex(pick) % (active.size() - 1);
        active.get(i).sealed = true;
        active.get(i + 1).sealed = true;
        child(List.of(active.get(i).id, active.get(i + 1).id));
    }

    private void child(List<String> parents) {
        add("c" + nextChild++, ChannelType.STREAM, parents, ServerChannelStatus.WAIT);
    }

    Read read(String id, ChannelPosition from, int max) {
        Channel c = channels.get(id);
        if (c.status != ServerChannelStatus.OPEN) {
            violations.add("read " + id + " while the server has it " + c.status);
        }
        if (from.isFinished()) {
            violations.add("read " + id + " past its end");
            return new Read(id, c.length, c.length, from);
        }
        int start = offsetOf(from);
        int end = (int) Math.min(c.length, (long) start + max);
        boolean done = c.sealed && end == c.length;
        return new Read(id, start, end, done ? ChannelPosition.finished() : position(c, end));
    }

    /**
     * The client's checkpoint push; a finished push terminates the channel and may open children.
     */
    void checkpoint(String id, ChannelPosition position) {
        Channel c = channels.get(id);
        c.checkpoint = position;
        if (!position.isFinished()) {
            return;
        }
        if (!c.sealed) {
            violations.add("finished pushed for " + id + " which has more records");
        }
        c.status = ServerChannelStatus.TERMINATED;
        for (Channel child : channels.values()) {
            if (child.status == ServerChannelStatus.WAIT && allParentsTerminated(child)) {
                child.status = ServerChannelStatus.OPEN;
            }
        }
    }

    boolean allParentsTerminated(Channel child) {
        return child.parents.stream()
                .allMatch(p -> channels.get(p).status == ServerChannelStatus.TERMINATED);
    }

    private List<Channel> activeStreams() {
        return channels.values().stream()
                .filter(c -> c.type == ChannelType.STREAM && !c.sealed)
                .toList();
    }

    private int pickIndex(int pick) {
        int n = activeStreams().size();
        return n == 0 ? 0 : pick % n;
    }

    static int offsetOf(ChannelPosition position) {
        String token = position.token();
        return Integer.parseInt(token.substring(token.lastIndexOf(':') + 1));
    }

    private static ChannelPosition position(Channel c, int offset) {
        return ChannelPosition.at(c.id + ":" + offset);
    }
}
