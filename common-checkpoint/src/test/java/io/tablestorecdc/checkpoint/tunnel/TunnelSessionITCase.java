package io.tablestorecdc.checkpoint.tunnel;

import static io.tablestorecdc.checkpoint.tunnel.TunnelEmulatorFixture.drain;
import static io.tablestorecdc.checkpoint.tunnel.TunnelEmulatorFixture.ids;
import static io.tablestorecdc.checkpoint.tunnel.TunnelEmulatorFixture.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TunnelSession} over {@link SdkTunnelProxy} against the emulator. Heartbeats are driven by
 * hand ({@link TunnelSession#heartbeatOnce()}), so no test waits for a schedule.
 */
class TunnelSessionITCase {

    private static final TunnelSessionConfig CONFIG =
            new TunnelSessionConfig("session-it", Duration.ofSeconds(5), Duration.ofSeconds(60));

    private static TunnelEmulatorFixture bed;

    private RecordingProxy proxy;
    private final List<TunnelSession> sessions = new ArrayList<>();

    @BeforeAll
    static void startEmulator() {
        bed = new TunnelEmulatorFixture();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @BeforeEach
    void newProxy() {
        proxy = new RecordingProxy(bed.proxy(new TunnelMetrics()));
    }

    @AfterEach
    void closeAll() {
        sessions.forEach(TunnelSession::close);
        proxy.close();
    }

    private TunnelSession open(String tunnelId) {
        TunnelSession session = TunnelSession.open(proxy, tunnelId, CONFIG);
        sessions.add(session);
        return session;
    }

    private String streamTunnel(String table) {
        return proxy.createTunnel(table, "cdc", TunnelType.STREAM, TunnelStart.latest());
    }

    private Map<String, ServerChannel> described(String table) {
        return proxy.describeTunnel(table, "cdc").channels().stream()
                .collect(Collectors.toMap(ServerChannel::channelId, Function.identity()));
    }

    private static HeldChannel held(TunnelSession session, String channelId) {
        return session.heldChannels().stream()
                .filter(c -> c.channelId().equals(channelId))
                .findFirst()
                .orElseThrow(() -> new AssertionError(channelId + " is not held"));
    }

    /** A split table whose parent p-0 has been read to its end; returns the session. */
    private TunnelSession splitAndReadParentToItsEnd(String table) {
        TunnelSession session = open(streamTunnel(table));
        assertThat(session.openChannelIds()).containsExactly("p-0");
        bed.put(table, "a", 1);
        assertThat(bed.emulator.tunnels().split(table, key("m"))).containsExactly("p-1", "p-2");
        bed.put(table, "b", 2);
        bed.put(table, "z", 3);

        String start = session.serverCheckpoint("p-0").position().token();
        ReadResult tail = proxy.readRecords(session.clientId(), "p-0", start);
        assertThat(ids(tail.records())).containsExactly("a");
        assertThat(tail.isFinished()).isTrue();

        session.heartbeatOnce();
        session.heartbeatOnce();
        assertThat(session.openChannelIds()).containsExactly("p-0");
        assertThat(described(table).get("p-1").status()).isEqualTo(ServerChannelStatus.WAIT);
        assertThat(described(table).get("p-2").status()).isEqualTo(ServerChannelStatus.WAIT);
        return session;
    }

    private void assertChildrenOpenAfterTheParentTerminates(
            String table, TunnelSession session, long parentVersion) {
        proxy.heartbeats.clear();

        session.heartbeatOnce();

        assertThat(proxy.heartbeats.get(0))
                .contains(
                        new HeldChannel("p-0", parentVersion + 1, ServerChannelStatus.TERMINATED));
        assertThat(session.openChannelIds()).containsExactly("p-1", "p-2");
        assertThat(described(table).get("p-0").status()).isEqualTo(ServerChannelStatus.TERMINATED);
        TunnelClientId client = session.clientId();
        assertThat(
                        ids(
                                drain(
                                        proxy,
                                        client,
                                        "p-1",
                                        session.serverCheckpoint("p-1").position().token())))
                .containsExactly("b");
        assertThat(
                        ids(
                                drain(
                                        proxy,
                                        client,
                                        "p-2",
                                        session.serverCheckpoint("p-2").position().token())))
                .containsExactly("z");
    }

    @Test
    void childrenOpenOnlyAfterTheParentsFinishedCheckpoint() {
        String table = bed.newTable();
        TunnelSession session = splitAndReadParentToItsEnd(table);
        long version = held(session, "p-0").version();
        assertThat(held(session, "p-0").status()).isEqualTo(ServerChannelStatus.OPEN);

        session.checkpoint("p-0", ChannelPosition.finished());

        assertThat(held(session, "p-0"))
                .isEqualTo(new HeldChannel("p-0", version + 1, ServerChannelStatus.TERMINATED));
        assertThat(session.openChannelIds()).doesNotContain("p-1", "p-2");
        assertChildrenOpenAfterTheParentTerminates(table, session, version);
    }

    @Test
    void childrenOpenOnlyAfterTheParentIsMarkedFinishedCommitted() {
        String table = bed.newTable();
        TunnelSession session = splitAndReadParentToItsEnd(table);
        long version = held(session, "p-0").version();

        session.markFinishedCommitted("p-0");

        assertThat(session.serverCheckpoint("p-0").position().isFinished())
                .as("the server learns the finish from the heartbeat alone")
                .isFalse();
        assertChildrenOpenAfterTheParentTerminates(table, session, version);
    }

    @Test
    void aSecondClientMakesTheFirstCloseAChannelAtTheNextVersion() {
        String table = bed.newTable();
        bed.emulator.tunnels().split(table, key("h"));
        bed.emulator.tunnels().split(table, key("p"));
        String tunnelId = streamTunnel(table);
        TunnelSession first = open(tunnelId);
        assertThat(first.openChannelIds()).hasSize(3);
        TunnelSession second = open(tunnelId);
        assertThat(second.openChannelIds()).isEmpty();

        proxy.answers.clear();
        first.heartbeatOnce();

        List<AssignedChannel> closing =
                proxy.answers.get(0).stream()
                        .filter(c -> c.status() == ServerChannelStatus.CLOSING)
                        .toList();
        assertThat(closing).hasSize(1);
        AssignedChannel given = closing.get(0);
        assertThat(first.openChannelIds()).hasSize(2).doesNotContain(given.channelId());
        HeldChannel close =
                new HeldChannel(given.channelId(), given.version() + 1, ServerChannelStatus.CLOSE);
        assertThat(first.heldChannels()).contains(close);

        proxy.heartbeats.clear();
        first.heartbeatOnce();
        second.heartbeatOnce();

        assertThat(proxy.heartbeats.get(0)).contains(close);
        assertThat(first.heldChannels())
                .extracting(HeldChannel::channelId)
                .doesNotContain(given.channelId());
        assertThat(second.openChannelIds()).containsExactly(given.channelId());
        assertThat(described(table).get(given.channelId()).clientId())
                .contains(second.clientId().clientId());
    }

    @Test
    void anExpiredTunnelStopsTheSessionWithExpired() {
        String table = bed.newTable();
        String tunnelId = streamTunnel(table);
        TunnelSession session = open(tunnelId);

        bed.emulator.tunnels().expireTunnel(tunnelId);
        session.heartbeatOnce();

        assertThat(session.failure())
                .hasValueSatisfying(e -> assertThat(e.kind()).isEqualTo(Kind.EXPIRED));
        assertThat(session.isStopped()).isTrue();
        assertThat(session.openChannelIds()).isEmpty();
        assertThatThrownBy(session::checkHealthy)
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EXPIRED))
                .hasMessageContaining(SdkErrorClassifier.advice(Kind.EXPIRED));
    }

    @Test
    void closeReleasesTheChannelsAtOnce() {
        String table = bed.newTable();
        TunnelSession session = open(streamTunnel(table));
        assertThat(described(table).get("p-0").clientId()).contains(session.clientId().clientId());

        session.close();

        ServerChannel channel = described(table).get("p-0");
        assertThat(channel.clientId()).isEmpty();
        assertThat(channel.status()).isNotEqualTo(ServerChannelStatus.OPEN);
        assertThat(session.openChannelIds()).isEmpty();
        assertThatThrownBy(session::checkHealthy)
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.LOST_OWNERSHIP));
    }

    /** The real proxy, with every heartbeat's report and answer recorded. */
    private static final class RecordingProxy extends ForwardingTunnelProxy {

        final List<List<HeldChannel>> heartbeats = new ArrayList<>();
        final List<List<AssignedChannel>> answers = new ArrayList<>();

        RecordingProxy(TunnelProxy delegate) {
            super(delegate);
        }

        @Override
        public synchronized List<AssignedChannel> heartbeat(
                TunnelClientId client, List<HeldChannel> held) {
            heartbeats.add(List.copyOf(held));
            List<AssignedChannel> answer = super.heartbeat(client, held);
            answers.add(List.copyOf(answer));
            return answer;
        }
    }
}
