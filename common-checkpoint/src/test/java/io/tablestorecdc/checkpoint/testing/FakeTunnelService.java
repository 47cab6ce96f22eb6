package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.HeldChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.ServerCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The project's one fake Tunnel Service: a stateful in-memory server behind {@link TunnelProxy},
 * for the unit tests of the session, the merger and gate, the readers and both engines'
 * enumerators. Thread-safe.
 *
 * <p>Server model (deliberately small and conservative):
 *
 * <ul>
 *   <li>One tunnel. Each channel has a record log, a type, parents, a status, a version, an owner
 *       and a server checkpoint ({@code "<channel>@0"} with sequence 0 at first). Tokens are {@code
 *       "<channel>@<offset>"}; a sealed channel's read past its last record returns finished.
 *   <li>Lineage: a channel with parents waits ({@code WAIT}) until every parent is finished (a
 *       finished checkpoint or a {@code TERMINATED} heartbeat report), then opens. {@link #split}
 *       and {@link #merge} seal the parents and add waiting children.
 *   <li>Ownership: a heartbeat offers every free channel ({@code CLOSE}, or {@code OPEN} held by no
 *       client) to the caller as {@code OPEN} with version + 1, adopts reports whose version is at
 *       least the server's ({@code CLOSE} frees, {@code TERMINATED} finishes) and answers the
 *       caller's {@code OPEN} and {@code CLOSING} channels. A read needs an {@code OPEN} channel
 *       that no other client holds (readers borrow their consumer's client without heartbeating).
 *   <li>Checkpoints store only the token (the server has no notion of skip), demand {@code last +
 *       1} as sequence number and resynchronise once as the real adapter does; a finished one is
 *       never overwritten.
 *   <li>Faults, answers and hooks are scripted through {@link #script()}; {@link #requests()} lists
 *       what clients asked.
 * </ul>
 */
public final class FakeTunnelService implements TunnelProxy {

    private final String tableName;
    private final String tunnelName;
    private final String tunnelId;
    private final TunnelType type;
    private final Map<String, FakeChannel> channels = new LinkedHashMap<>();
    private final TunnelScript script = new TunnelScript();
    private final TunnelRequests requests = new TunnelRequests();
    private final List<String> finishes = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private Random random;
    private int batchSize = 2;
    private boolean autoAssign = true;
    private boolean exists = true;
    private boolean describedExpired;
    private int clients;
    private int resyncs;

    public FakeTunnelService(String tableName, String tunnelName, String tunnelId, TunnelType t) {
        this.tableName = tableName;
        this.tunnelName = tunnelName;
        this.tunnelId = tunnelId;
        this.type = t;
    }

    /** A stream tunnel {@code "t"} of id {@code tunnelId} with one open stream channel. */
    public static FakeTunnelService oneStreamChannel(String tunnelId, String channelId) {
        return new FakeTunnelService("table", "t", tunnelId, TunnelType.STREAM)
                .channel(channelId, ChannelType.STREAM);
    }

    /** A stream tunnel {@code "t"} (id {@code "tunnel-t"}) on table {@code "table"}. */
    public static FakeTunnelService streamTunnel() {
        return new FakeTunnelService("table", "t", "tunnel-t", TunnelType.STREAM);
    }

    // ---- channels, records and lineage ----

    /** Adds a channel: {@code WAIT} while a parent is unfinished, else {@code OPEN} and free. */
    public synchronized FakeTunnelService channel(String id, ChannelType t, String... parents) {
        FakeChannel c = add(id, t, List.of(parents), ServerChannelStatus.OPEN);
        c.status = parentsFinished(c) ? ServerChannelStatus.OPEN : ServerChannelStatus.WAIT;
        return this;
    }

    /** Adds a channel in the given status (no parents). */
    public synchronized FakeTunnelService addChannel(
            String id, ChannelType t, ServerChannelStatus status) {
        add(id, t, List.of(), status);
        return this;
    }

    /** A stream channel free to be offered ({@code CLOSE}, version 0). */
    public FakeTunnelService addChannel(String id) {
        return addChannel(id, ChannelType.STREAM, ServerChannelStatus.CLOSE);
    }

    private FakeChannel add(String id, ChannelType t, List<String> parents, ServerChannelStatus s) {
        FakeChannel c = new FakeChannel(id, t, parents, s);
        channels.put(id, c);
        return c;
    }

    /** Appends PUT records with these integer keys (and a column {@code v = 'v<key>'}). */
    public synchronized FakeTunnelService append(String channelId, long... keys) {
        FakeChannel c = channel(channelId);
        for (long key : keys) {
            c.append(key);
        }
        return this;
    }

    /** Appends {@code record} as it is (for example one without a commit time, as base data). */
    public synchronized FakeTunnelService append(String channelId, ChangeRecord record) {
        channel(channelId).records.add(record);
        return this;
    }

    /** Appends {@code count} PUT records keyed by their offset in the channel. */
    public synchronized FakeTunnelService appendRecords(String channelId, int count) {
        int size = channel(channelId).records.size();
        for (int i = 0; i < count; i++) {
            append(channelId, size + i);
        }
        return this;
    }

    /** Ends a channel: after its records, reads return the finished token. */
    public synchronized FakeTunnelService seal(String channelId) {
        channel(channelId).sealed = true;
        return this;
    }

    /** Drops a channel's tail, as a server that lost data would. */
    public synchronized void truncate(String channelId, int size) {
        List<ChangeRecord> records = channel(channelId).records;
        records.subList(size, records.size()).clear();
    }

    /** Seals {@code parent} and adds two waiting children. */
    public synchronized FakeTunnelService split(String parent, String childA, String childB) {
        seal(parent);
        return channel(childA, ChannelType.STREAM, parent)
                .channel(childB, ChannelType.STREAM, parent);
    }

    /** Seals both parents and adds one waiting child. */
    public synchronized FakeTunnelService merge(String child, String parentA, String parentB) {
        seal(parentA).seal(parentB);
        return channel(child, ChannelType.STREAM, parentA, parentB);
    }

    /** Marks a channel finished, as if an earlier consumer had pushed its finish. */
    public synchronized FakeTunnelService finishedOnServer(String channelId) {
        FakeChannel c = channel(channelId);
        c.checkpoint = ChannelPosition.FINISHED_TOKEN;
        c.status = ServerChannelStatus.TERMINATED;
        openChildren();
        return this;
    }

    /** Drops finished channels whose children all opened from the listing, as a server does. */
    public synchronized void forgetFinished() {
        for (FakeChannel c : channels.values()) {
            c.forgotten |=
                    c.status == ServerChannelStatus.TERMINATED
                            && channels.values().stream()
                                    .noneMatch(x -> x.parents.contains(c.id) && x.waits());
        }
    }

    // ---- scripted behaviour ----

    /** Records per response (default 2). */
    public synchronized FakeTunnelService batchSize(int size) {
        this.batchSize = size;
        return this;
    }

    /** Each response holds a seeded random number of records, from 0 to {@code max}. */
    public synchronized FakeTunnelService randomBatches(long seed, int max) {
        this.random = new Random(seed);
        this.batchSize = max;
        return this;
    }

    /** Whether free channels are offered on heartbeats (default on). */
    public synchronized void setAutoAssign(boolean on) {
        autoAssign = on;
    }

    /** Lets a {@code WAIT} channel be offered from the next heartbeat on. */
    public synchronized void release(String id) {
        channel(id).status = ServerChannelStatus.CLOSE;
    }

    /** Asks the owner to give the channel up (a rebalance): {@code CLOSING} with version + 1. */
    public synchronized void requestClose(String id) {
        FakeChannel c = channel(id);
        c.status = ServerChannelStatus.CLOSING;
        c.version++;
    }

    /** Another client checkpointed the channel meanwhile. */
    public synchronized void checkpointedElsewhere(String id, long sequence) {
        channel(id).sequence = sequence;
    }

    /** Whether the tunnel exists (it does until told otherwise; a create makes it exist). */
    public synchronized void setExists(boolean on) {
        exists = on;
    }

    /** Descriptions report the tunnel expired (its stream data past retention). */
    public synchronized void markExpired() {
        describedExpired = true;
    }

    // ---- what tests inspect ----

    /** The faults, answers and hooks of this fake, for a test to script. */
    public TunnelScript script() {
        return script;
    }

    /** What clients asked so far. */
    public TunnelRequests requests() {
        return requests;
    }

    public synchronized FakeChannel channel(String id) {
        FakeChannel c = channels.get(id);
        if (c == null) {
            throw new IllegalArgumentException("fake: no channel " + id);
        }
        return c;
    }

    /** Ids of the channels, in the order they were added. */
    public synchronized List<String> channelIds() {
        return List.copyOf(channels.keySet());
    }

    /** The server checkpoint's token; empty once the channel is forgotten. */
    public synchronized Optional<String> checkpointOf(String channelId) {
        FakeChannel c = channels.get(channelId);
        return c == null || c.forgotten ? Optional.empty() : Optional.of(c.checkpoint);
    }

    /** Channels whose finish the server received, in order. */
    public synchronized List<String> finishesReceived() {
        return List.copyOf(finishes);
    }

    public synchronized int connects() {
        return clients;
    }

    public synchronized int resyncs() {
        return resyncs;
    }

    /** Protocol breaches a client committed (a finish pushed for a channel with more records). */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** The token of this fake at record {@code offset} of a channel. */
    public static String token(String channelId, int offset) {
        return channelId + "@" + offset;
    }

    /** The record offset a token of this fake names. */
    public static int offsetOf(ChannelPosition position) {
        String token = position.token();
        return Integer.parseInt(token.substring(token.lastIndexOf('@') + 1));
    }

    // ---- TunnelProxy ----

    @Override
    public synchronized TunnelDescription describeTunnel(String table, String tunnel) {
        enter("describeTunnel");
        if (!exists || !table.equals(tableName) || !tunnel.equals(tunnelName)) {
            throw new TunnelException(Kind.NOT_FOUND, "fake: no tunnel " + tunnel);
        }
        List<ServerChannel> list =
                channels.values().stream()
                        .filter(c -> !c.forgotten)
                        .map(FakeChannel::listed)
                        .toList();
        return new TunnelDescription(
                tunnelId, tunnelName, tableName, type, Optional.empty(), describedExpired, list);
    }

    @Override
    public synchronized String createTunnel(
            String table, String tunnel, TunnelType tunnelType, TunnelStart start) {
        enter("createTunnel");
        if (exists) {
            throw new TunnelException(Kind.ALREADY_EXISTS, "fake: tunnel exists");
        }
        exists = true;
        return tunnelId;
    }

    @Override
    public synchronized TunnelClientId connect(String id, String tag, Duration timeout) {
        enter("connect");
        requireTunnel(id);
        script.connectHook().run();
        return new TunnelClientId(id, "client-" + (++clients));
    }

    @Override
    public synchronized List<AssignedChannel> heartbeat(
            TunnelClientId client, List<HeldChannel> held) {
        enter("heartbeat");
        requireTunnel(client.tunnelId());
        requests.heartbeat(held);
        held.forEach(report -> adopt(client.clientId(), report));
        channels.values().stream()
                .filter(c -> autoAssign && c.free())
                .forEach(c -> c.assignTo(client.clientId()));
        List<AssignedChannel> answer =
                channels.values().stream()
                        .filter(c -> c.assignedTo(client.clientId()))
                        .map(c -> new AssignedChannel(c.id, c.version, c.status))
                        .toList();
        return script.takeHeartbeatAnswer().orElse(answer);
    }

    private void adopt(String clientId, HeldChannel report) {
        FakeChannel c = channels.get(report.channelId());
        if (c == null || !clientId.equals(c.owner) || report.version() < c.version) {
            return;
        }
        c.version = report.version();
        if (report.status() == ServerChannelStatus.CLOSE) {
            c.free(ServerChannelStatus.CLOSE);
        } else if (report.status() == ServerChannelStatus.TERMINATED) {
            finish(c);
        }
    }

    @Override
    public synchronized ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
        enter("getCheckpoint:" + channelId);
        requireTunnel(client.tunnelId());
        FakeChannel c = channel(channelId);
        return new ServerCheckpoint(ChannelPosition.at(c.checkpoint), c.sequence);
    }

    @Override
    public synchronized long checkpoint(
            TunnelClientId client, String channelId, ChannelPosition position, long sequence) {
        enter("checkpoint:" + channelId);
        requireTunnel(client.tunnelId());
        requests.push(channelId + " " + position);
        FakeChannel c = channel(channelId);
        if (sequence == c.sequence + 1) {
            return store(c, position, sequence);
        }
        resyncs++;
        if (c.checkpoint.equals(position.token())) {
            return c.sequence;
        }
        if (ChannelPosition.FINISHED_TOKEN.equals(c.checkpoint)) {
            throw new TunnelException(
                    Kind.CHECKPOINT_CONFLICT, "fake: channel " + channelId + " already finished");
        }
        return store(c, position, c.sequence + 1);
    }

    private long store(FakeChannel c, ChannelPosition position, long sequence) {
        c.checkpoint = position.token();
        c.sequence = sequence;
        if (position.isFinished()) {
            if (!c.sealed) {
                violations.add("finished pushed for " + c.id + " which may get more records");
            }
            finish(c);
        }
        return sequence;
    }

    private void finish(FakeChannel c) {
        if (c.status != ServerChannelStatus.TERMINATED) {
            c.status = ServerChannelStatus.TERMINATED;
            finishes.add(c.id);
            openChildren();
        }
    }

    private void openChildren() {
        channels.values().stream()
                .filter(c -> c.status == ServerChannelStatus.WAIT && !c.parents.isEmpty())
                .filter(this::parentsFinished)
                .forEach(c -> c.status = ServerChannelStatus.OPEN);
    }

    private boolean parentsFinished(FakeChannel c) {
        return c.parents.stream()
                .allMatch(p -> channel(p).status == ServerChannelStatus.TERMINATED);
    }

    @Override
    public synchronized ReadResult readRecords(
            TunnelClientId client, String channelId, String token) {
        enter("readRecords:" + channelId);
        requireTunnel(client.tunnelId());
        script.readHook().run();
        requests.read(token);
        Optional<ReadResult> scripted = script.read(channelId, token);
        FakeChannel c = channel(channelId);
        if (!c.readableBy(client.clientId())) {
            String why = "fake: channel " + channelId + " is " + c.status + " to " + client;
            throw new TunnelException(Kind.INVALID, "OTSParameterInvalid", why, null);
        }
        if (scripted.isPresent()) {
            return scripted.get();
        }
        if (!token.startsWith(channelId + "@")) {
            throw new IllegalArgumentException("fake: " + token + " is no token of " + channelId);
        }
        int size = random == null ? batchSize : random.nextInt(batchSize + 1);
        return LogPage.read(c, offsetOf(ChannelPosition.at(token)), size);
    }

    @Override
    public synchronized void shutdown(TunnelClientId client) {
        enter("shutdown");
        requests.shutdown(client.clientId());
        channels.values().stream()
                .filter(c -> client.clientId().equals(c.owner))
                .filter(c -> c.status != ServerChannelStatus.TERMINATED)
                .forEach(c -> c.free(ServerChannelStatus.CLOSE));
    }

    /** Nothing to release: every engine part closes its own proxy, and the fake stays usable. */
    @Override
    public void close() {}

    private void enter(String call) {
        requests.call(call);
        script.check(call.split(":", 2)[0]);
    }

    private void requireTunnel(String id) {
        if (!exists || !tunnelId.equals(id)) {
            throw new TunnelException(
                    Kind.INVALID, "OTSParameterInvalid", "fake: unknown tunnel " + id, null);
        }
    }
}
