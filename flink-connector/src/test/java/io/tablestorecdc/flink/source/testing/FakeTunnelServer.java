package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
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
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small stateful tunnel server for unit tests: one tunnel, channels with record logs, and the
 * server-side lineage rule (a child stays WAIT until every parent's finish was checkpointed or
 * reported TERMINATED). Tokens are {@code <channel>@<offset>}. Thread-safe.
 */
public final class FakeTunnelServer {

    public static final String TABLE = "orders";
    public static final String TUNNEL = "orders-tunnel";

    private final String tunnelId;
    private final TunnelType type;
    private final Map<String, FakeChannel> channels = new LinkedHashMap<>();
    private final List<String> finishesReceived = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final List<String> reads = new ArrayList<>();
    private final List<String> shutdowns = new ArrayList<>();
    private int batchSize = 2;
    private int clients;
    private Runnable onConnect = () -> {};

    public FakeTunnelServer(String tunnelId, TunnelType type) {
        this.tunnelId = tunnelId;
        this.type = type;
    }

    private static final class FakeChannel {
        final String id;
        final ChannelType type;
        final List<String> parents;
        final List<ChangeRecord> records = new ArrayList<>();
        boolean sealed;
        boolean finishedOnServer;
        String checkpoint;

        FakeChannel(String id, ChannelType type, List<String> parents) {
            this.id = id;
            this.type = type;
            this.parents = parents;
            this.checkpoint = id + "@0";
        }
    }

    /** Adds a channel; it is OPEN once every parent is finished on the server. */
    public synchronized FakeTunnelServer channel(String id, ChannelType type, String... parents) {
        channels.put(id, new FakeChannel(id, type, List.of(parents)));
        return this;
    }

    /** Appends PUT records with integer keys to a channel. */
    public synchronized FakeTunnelServer append(String channelId, long... keys) {
        FakeChannel channel = channels.get(channelId);
        for (long key : keys) {
            channel.records.add(put(channelId, key, channel.records.size()));
        }
        return this;
    }

    /** Ends a channel: after its records, reads return the finished token. */
    public synchronized FakeTunnelServer seal(String channelId) {
        channels.get(channelId).sealed = true;
        return this;
    }

    /** Marks a channel finished on the server, as if an earlier run had pushed its finish. */
    public synchronized FakeTunnelServer finishedOnServer(String channelId) {
        channels.get(channelId).finishedOnServer = true;
        return this;
    }

    public synchronized FakeTunnelServer batchSize(int size) {
        this.batchSize = size;
        return this;
    }

    /** Runs {@code hook} whenever a client connects, before the connect answers. */
    public synchronized FakeTunnelServer onConnect(Runnable hook) {
        this.onConnect = hook;
        return this;
    }

    /** Ids of the clients shut down, in order. */
    public synchronized List<String> shutdowns() {
        return List.copyOf(shutdowns);
    }

    /** How many clients connected so far. */
    public synchronized int connects() {
        return clients;
    }

    /** Channels whose finish the server received, in order. */
    public synchronized List<String> finishesReceived() {
        return List.copyOf(finishesReceived);
    }

    /** Calls that changed server state, e.g. {@code checkpoint a a@2}. */
    /** The channel of every readRecords call, in order. */
    public synchronized List<String> reads() {
        return List.copyOf(reads);
    }

    public synchronized List<String> log() {
        return List.copyOf(log);
    }

    public synchronized Optional<String> checkpointOf(String channelId) {
        return Optional.ofNullable(channels.get(channelId).checkpoint);
    }

    private static ChangeRecord put(String channelId, long key, int index) {
        return new ChangeRecord(
                ChangeRecord.Action.PUT,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(key))),
                List.of(
                        new ChangeRecord.ColumnChange(
                                "v",
                                ChangeRecord.ColumnOperation.PUT,
                                CellValue.ofString("v" + key),
                                0L)),
                new SequenceInfo(1, 1_000_000L + index * 1000L, index),
                channelId);
    }

    private synchronized ServerChannelStatus statusOf(FakeChannel channel) {
        if (channel.finishedOnServer) {
            return ServerChannelStatus.TERMINATED;
        }
        boolean parentsDone =
                channel.parents.stream().allMatch(p -> channels.get(p).finishedOnServer);
        return parentsDone ? ServerChannelStatus.OPEN : ServerChannelStatus.WAIT;
    }

    /** A proxy onto this server (each enumerator or reader closes its own). */
    public TunnelProxy proxy() {
        return new Proxy();
    }

    private final class Proxy implements TunnelProxy {

        @Override
        public TunnelDescription describeTunnel(String tableName, String tunnelName) {
            synchronized (FakeTunnelServer.this) {
                if (!TUNNEL.equals(tunnelName)) {
                    throw new TunnelException(
                            TunnelException.Kind.NOT_FOUND, "tunnel " + tunnelName + " not found");
                }
                List<ServerChannel> listing = new ArrayList<>();
                for (FakeChannel c : channels.values()) {
                    listing.add(ServerChannel.of(c.id, c.type, statusOf(c)));
                }
                return new TunnelDescription(
                        tunnelId, TUNNEL, TABLE, type, Optional.empty(), false, listing);
            }
        }

        @Override
        public String createTunnel(
                String tableName, String tunnelName, TunnelType type, TunnelStart start) {
            throw new TunnelException(TunnelException.Kind.ALREADY_EXISTS, "exists");
        }

        @Override
        public TunnelClientId connect(
                String tunnelId, String clientTag, Duration heartbeatTimeout) {
            synchronized (FakeTunnelServer.this) {
                onConnect.run();
                return new TunnelClientId(tunnelId, "client-" + (++clients));
            }
        }

        @Override
        public List<AssignedChannel> heartbeat(TunnelClientId client, List<HeldChannel> held) {
            synchronized (FakeTunnelServer.this) {
                for (HeldChannel h : held) {
                    if (h.status() == ServerChannelStatus.TERMINATED) {
                        markFinished(h.channelId());
                    }
                }
                List<AssignedChannel> answer = new ArrayList<>();
                for (FakeChannel c : channels.values()) {
                    ServerChannelStatus status = statusOf(c);
                    if (status == ServerChannelStatus.OPEN) {
                        answer.add(new AssignedChannel(c.id, 1, status));
                    }
                }
                return answer;
            }
        }

        @Override
        public ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
            synchronized (FakeTunnelServer.this) {
                FakeChannel c = channels.get(channelId);
                return new ServerCheckpoint(ChannelPosition.at(c.checkpoint), 0);
            }
        }

        @Override
        public long checkpoint(
                TunnelClientId client, String channelId, ChannelPosition position, long seq) {
            synchronized (FakeTunnelServer.this) {
                log.add("checkpoint " + channelId + " " + position);
                channels.get(channelId).checkpoint = position.token();
                if (position.isFinished()) {
                    markFinished(channelId);
                }
                return seq;
            }
        }

        @Override
        public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
            synchronized (FakeTunnelServer.this) {
                FakeChannel c = channels.get(channelId);
                reads.add(channelId);
                int offset = Integer.parseInt(token.substring(token.indexOf('@') + 1));
                int end = Math.min(c.records.size(), offset + batchSize);
                List<ChangeRecord> records = c.records.subList(offset, end);
                boolean last = end == c.records.size();
                ChannelPosition next =
                        last && c.sealed
                                ? ChannelPosition.finished()
                                : ChannelPosition.at(channelId + "@" + end);
                return new ReadResult(List.copyOf(records), next, !last, 10);
            }
        }

        @Override
        public void shutdown(TunnelClientId client) {
            synchronized (FakeTunnelServer.this) {
                shutdowns.add(client.clientId());
            }
        }

        @Override
        public void close() {}
    }

    private void markFinished(String channelId) {
        FakeChannel c = channels.get(channelId);
        if (!c.finishedOnServer) {
            c.finishedOnServer = true;
            finishesReceived.add(channelId);
        }
    }
}
