package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A stateful in-memory tunnel server behind {@link TunnelProxy}, for unit tests of the session, the
 * connectors' enumerators and readers.
 *
 * <p>Server model (deliberately small and conservative):
 *
 * <ul>
 *   <li>Channels start in the status a test gives them. {@code WAIT} channels stay held until the
 *       test calls {@link #release}; {@code CLOSE} channels are offered to the next client that
 *       heartbeats, as {@code OPEN} with version + 1 (when auto-assignment is on).
 *   <li>A heartbeat report with a version at least the server's is adopted: {@code CLOSE} frees the
 *       channel, {@code TERMINATED} ends it. The answer lists the client's OPEN and CLOSING
 *       channels; TERMINATED and CLOSE ones are left out (dropped on the client).
 *   <li>Checkpoints demand {@code last + 1} as sequence number and resynchronise once as the real
 *       adapter does; the initial checkpoint of a channel is {@code "start-<id>"} with sequence 0.
 *   <li>Reads return scripted results per (channel, token), else an empty page at the same token;
 *       reading a channel not OPEN to the caller fails with {@link Kind#INVALID}.
 *   <li>Any call can be made to fail: per action, once ({@link #failNext}) or from now on ({@link
 *       #expire}).
 * </ul>
 */
public final class FakeTunnelProxy implements TunnelProxy {

    /** One channel as the fake server holds it. */
    public static final class Channel {
        final String id;
        final ChannelType type;
        ServerChannelStatus status;
        long version;
        String owner;
        String checkpoint;
        long sequence;

        Channel(String id, ChannelType type, ServerChannelStatus status) {
            this.id = id;
            this.type = type;
            this.status = status;
            this.checkpoint = "start-" + id;
        }

        public ServerChannelStatus status() {
            return status;
        }

        public long version() {
            return version;
        }

        public String checkpoint() {
            return checkpoint;
        }

        public long sequence() {
            return sequence;
        }

        public Optional<String> owner() {
            return Optional.ofNullable(owner);
        }
    }

    private final String tableName;
    private final String tunnelName;
    private final String tunnelId;
    private final TunnelType type;
    private final Map<String, Channel> channels = new LinkedHashMap<>();
    private final Map<String, ReadResult> scripted = new HashMap<>();
    private final Map<String, Deque<RuntimeException>> failures = new HashMap<>();
    private final List<List<HeldChannel>> heartbeats = new ArrayList<>();
    private final List<String> calls = new ArrayList<>();
    private TunnelException permanentFailure;
    private boolean autoAssign = true;
    private boolean exists = true;
    private int clients;
    private int resyncs;
    private boolean closed;
    private List<AssignedChannel> nextAnswer;
    private boolean describedExpired;

    public FakeTunnelProxy(String tableName, String tunnelName, TunnelType type) {
        this.tableName = tableName;
        this.tunnelName = tunnelName;
        this.tunnelId = "tunnel-" + tunnelName;
        this.type = type;
    }

    /** A stream tunnel {@code "tunnel-t"} on table {@code "table"}. */
    public static FakeTunnelProxy streamTunnel() {
        return new FakeTunnelProxy("table", "t", TunnelType.STREAM);
    }

    // ---- test controls ----

    public synchronized FakeTunnelProxy addChannel(
            String id, ChannelType channelType, ServerChannelStatus status) {
        channels.put(id, new Channel(id, channelType, status));
        return this;
    }

    /** A stream channel ready to be offered (CLOSE, version 0). */
    public FakeTunnelProxy addChannel(String id) {
        return addChannel(id, ChannelType.STREAM, ServerChannelStatus.CLOSE);
    }

    /** Lets a WAIT channel be offered from the next heartbeat on. */
    public synchronized void release(String id) {
        channel(id).status = ServerChannelStatus.CLOSE;
    }

    /** Asks the owner to give the channel up (a rebalance): CLOSING with version + 1. */
    public synchronized void requestClose(String id) {
        Channel c = channel(id);
        c.status = ServerChannelStatus.CLOSING;
        c.version++;
    }

    /** Whether CLOSE channels are offered on heartbeats (default on). */
    public synchronized void setAutoAssign(boolean on) {
        autoAssign = on;
    }

    /** The next heartbeat answers exactly this (after adopting the client's report). */
    public synchronized void answerNextHeartbeat(List<AssignedChannel> answer) {
        nextAnswer = List.copyOf(answer);
    }

    /** The tunnel does not exist until created. */
    public synchronized void setExists(boolean on) {
        exists = on;
    }

    public synchronized void script(String channelId, String token, ReadResult result) {
        scripted.put(channelId + "@" + token, result);
    }

    /** The next call of {@code action} (a TunnelProxy method name) throws {@code error}. */
    public synchronized void failNext(String action, RuntimeException error) {
        failures.computeIfAbsent(action, a -> new ArrayDeque<>()).add(error);
    }

    /** Descriptions report the tunnel expired (its stream data past retention). */
    public synchronized void markExpired() {
        describedExpired = true;
    }

    /** Every call from now on fails as the server does for an expired tunnel. */
    public synchronized void expire() {
        permanentFailure =
                new TunnelException(Kind.EXPIRED, "OTSTunnelExpired", "fake: tunnel expired", null);
    }

    public synchronized Channel channel(String id) {
        Channel c = channels.get(id);
        if (c == null) {
            throw new IllegalArgumentException("fake: no channel " + id);
        }
        return c;
    }

    /** Every heartbeat's report, in order. */
    public synchronized List<List<HeldChannel>> heartbeats() {
        return new ArrayList<>(heartbeats);
    }

    public synchronized List<HeldChannel> lastHeartbeat() {
        return heartbeats.get(heartbeats.size() - 1);
    }

    /** Every call, as "action" or "action:channel". */
    public synchronized List<String> calls() {
        return new ArrayList<>(calls);
    }

    public synchronized int resyncs() {
        return resyncs;
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    // ---- TunnelProxy ----

    @Override
    public synchronized TunnelDescription describeTunnel(String table, String tunnel) {
        enter("describeTunnel");
        if (!exists || !table.equals(tableName) || !tunnel.equals(tunnelName)) {
            throw new TunnelException(Kind.NOT_FOUND, "fake: no tunnel " + tunnel);
        }
        List<ServerChannel> list = new ArrayList<>();
        for (Channel c : channels.values()) {
            list.add(new ServerChannel(c.id, c.type, c.status, Optional.ofNullable(c.owner), 0L));
        }
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
    public synchronized TunnelClientId connect(
            String id, String clientTag, Duration heartbeatTimeout) {
        enter("connect");
        requireTunnel(id);
        return new TunnelClientId(id, "client-" + (++clients));
    }

    @Override
    public synchronized List<AssignedChannel> heartbeat(
            TunnelClientId client, List<HeldChannel> held) {
        enter("heartbeat");
        requireTunnel(client.tunnelId());
        heartbeats.add(List.copyOf(held));
        for (HeldChannel report : held) {
            adopt(client, report);
        }
        if (autoAssign) {
            offerFreeChannels(client);
        }
        if (nextAnswer != null) {
            List<AssignedChannel> scriptedAnswer = nextAnswer;
            nextAnswer = null;
            return scriptedAnswer;
        }
        return answer(client);
    }

    private void adopt(TunnelClientId client, HeldChannel report) {
        Channel c = channels.get(report.channelId());
        if (c == null || !client.clientId().equals(c.owner) || report.version() < c.version) {
            return;
        }
        c.version = report.version();
        if (report.status() == ServerChannelStatus.CLOSE) {
            c.status = ServerChannelStatus.CLOSE;
            c.owner = null;
        } else if (report.status() == ServerChannelStatus.TERMINATED) {
            c.status = ServerChannelStatus.TERMINATED;
        }
    }

    private void offerFreeChannels(TunnelClientId client) {
        for (Channel c : channels.values()) {
            if (c.status == ServerChannelStatus.CLOSE && c.owner == null) {
                c.status = ServerChannelStatus.OPEN;
                c.version++;
                c.owner = client.clientId();
            }
        }
    }

    private List<AssignedChannel> answer(TunnelClientId client) {
        List<AssignedChannel> answer = new ArrayList<>();
        for (Channel c : channels.values()) {
            boolean listed =
                    c.status == ServerChannelStatus.OPEN || c.status == ServerChannelStatus.CLOSING;
            if (listed && client.clientId().equals(c.owner)) {
                answer.add(new AssignedChannel(c.id, c.version, c.status));
            }
        }
        return answer;
    }

    @Override
    public synchronized ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
        enter("getCheckpoint:" + channelId);
        requireTunnel(client.tunnelId());
        Channel c = channel(channelId);
        return new ServerCheckpoint(ChannelPosition.at(c.checkpoint), c.sequence);
    }

    @Override
    public synchronized long checkpoint(
            TunnelClientId client, String channelId, ChannelPosition position, long sequence) {
        enter("checkpoint:" + channelId);
        requireTunnel(client.tunnelId());
        Channel c = channel(channelId);
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

    private static long store(Channel c, ChannelPosition position, long sequence) {
        c.checkpoint = position.token();
        c.sequence = sequence;
        return sequence;
    }

    @Override
    public synchronized ReadResult readRecords(
            TunnelClientId client, String channelId, String token) {
        enter("readRecords:" + channelId);
        requireTunnel(client.tunnelId());
        Channel c = channel(channelId);
        if (c.status != ServerChannelStatus.OPEN || !client.clientId().equals(c.owner)) {
            throw new TunnelException(
                    Kind.INVALID,
                    "OTSParameterInvalid",
                    "fake: channel " + channelId + " is not open to " + client.clientId(),
                    null);
        }
        ReadResult result = scripted.get(channelId + "@" + token);
        return result != null
                ? result
                : new ReadResult(List.of(), ChannelPosition.at(token), false, 0);
    }

    @Override
    public synchronized void shutdown(TunnelClientId client) {
        enter("shutdown");
        for (Channel c : channels.values()) {
            if (client.clientId().equals(c.owner) && c.status != ServerChannelStatus.TERMINATED) {
                c.owner = null;
                c.status = ServerChannelStatus.CLOSE;
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private void enter(String call) {
        calls.add(call);
        String action = call.contains(":") ? call.substring(0, call.indexOf(':')) : call;
        Deque<RuntimeException> queued = failures.get(action);
        if (queued != null && !queued.isEmpty()) {
            throw queued.poll();
        }
        if (permanentFailure != null) {
            throw permanentFailure;
        }
    }

    private void requireTunnel(String id) {
        if (!exists || !tunnelId.equals(id)) {
            throw new TunnelException(
                    Kind.INVALID, "OTSParameterInvalid", "fake: unknown tunnel " + id, null);
        }
    }
}
