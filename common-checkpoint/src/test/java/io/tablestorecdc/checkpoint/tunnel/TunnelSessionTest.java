package io.tablestorecdc.checkpoint.tunnel;

import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.CLOSE;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.CLOSING;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.OPEN;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.TERMINATED;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TunnelSessionTest {

    private static final TunnelSessionConfig CONFIG =
            new TunnelSessionConfig("test", Duration.ofSeconds(10), Duration.ofSeconds(60));

    private final FakeTunnelService server = FakeTunnelService.streamTunnel();
    private final ManualClock clock = new ManualClock();

    private TunnelSession open() {
        return TunnelSession.open(server, "tunnel-t", CONFIG, clock);
    }

    @Test
    void openConnectsAndLearnsTheAssignmentFromAnImmediateFirstHeartbeat() {
        server.addChannel("c1").addChannel("c2");

        TunnelSession session = open();

        assertThat(session.clientId()).isEqualTo(new TunnelClientId("tunnel-t", "client-1"));
        assertThat(server.requests().heartbeats()).containsExactly(List.of());
        assertThat(session.openChannelIds()).containsExactly("c1", "c2");
        assertThat(session.heldChannels())
                .containsExactly(new HeldChannel("c1", 1, OPEN), new HeldChannel("c2", 1, OPEN));
    }

    @Test
    void laterHeartbeatsReportTheHeldChannelsWithTheirVersions() {
        server.addChannel("c1");
        TunnelSession session = open();

        session.heartbeatOnce();

        assertThat(server.requests().lastHeartbeat())
                .containsExactly(new HeldChannel("c1", 1, OPEN));
        assertThat(session.successfulHeartbeats()).isEqualTo(2);
    }

    @Test
    void waitChannelsAreNeitherReadableNorReportedUntilTheServerOpensThem() {
        server.addChannel("parent").addChannel("child", ChannelType.STREAM, WAIT);
        TunnelSession session = open();
        assertThat(session.openChannelIds()).containsExactly("parent");

        server.release("child");
        session.heartbeatOnce();
        assertThat(session.openChannelIds()).containsExactly("child", "parent");

        // A server that lists WAIT in a heartbeat answer: never held, never reported back.
        server.script().answerNextHeartbeat(List.of(new AssignedChannel("other", 3, WAIT)));
        session.heartbeatOnce();
        session.heartbeatOnce();
        assertThat(server.requests().heartbeats())
                .allSatisfy(report -> assertThat(report).noneMatch(c -> c.status() == WAIT));
    }

    @Test
    void closingStopsReadingAndIsAnsweredWithCloseAtTheNextVersion() {
        server.addChannel("c1").addChannel("c2");
        TunnelSession session = open();
        server.setAutoAssign(false);
        server.requestClose("c1");

        session.heartbeatOnce();

        assertThat(session.openChannelIds()).containsExactly("c2");
        assertThat(session.heldChannels()).contains(new HeldChannel("c1", 3, CLOSE));

        session.heartbeatOnce();

        assertThat(server.requests().lastHeartbeat()).contains(new HeldChannel("c1", 3, CLOSE));
        assertThat(server.channel("c1").status()).isEqualTo(CLOSE);
        assertThat(server.channel("c1").owner()).isEmpty();
        assertThat(session.heldChannels()).extracting(HeldChannel::channelId).containsExactly("c2");
    }

    @Test
    void aClosedChannelReofferedWithAHigherVersionIsReadableAgain() {
        server.addChannel("c1");
        TunnelSession session = open();
        server.requestClose("c1");
        session.heartbeatOnce(); // CLOSING v2 -> CLOSE v3
        session.heartbeatOnce(); // reports CLOSE v3; the fake re-offers OPEN v4

        assertThat(session.openChannelIds()).containsExactly("c1");
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 4, OPEN));
    }

    @Test
    void aFinishedChannelIsNeverReportedTerminatedBeforeItsFinishIsCommitted() {
        server.addChannel("c1");
        TunnelSession session = open();
        server.script().answerRead("c1", "c1@0", finishedPage());

        ReadResult read =
                server.readRecords(session.clientId(), "c1", server.channel("c1").checkpoint());
        assertThat(read.isFinished()).isTrue();
        session.heartbeatOnce();
        session.heartbeatOnce();

        assertThat(server.requests().heartbeats())
                .allSatisfy(r -> assertThat(r).noneMatch(this::terminated));
        assertThat(server.channel("c1").status()).isEqualTo(OPEN);
    }

    @Test
    void afterTheCommitTheChannelIsReportedTerminatedOnceAtTheNextVersion() {
        server.addChannel("c1").addChannel("c2");
        TunnelSession session = open();

        session.markFinishedCommitted("c1");

        assertThat(session.openChannelIds()).containsExactly("c2");
        session.heartbeatOnce();
        assertThat(server.requests().lastHeartbeat())
                .contains(new HeldChannel("c1", 2, TERMINATED));
        assertThat(server.channel("c1").status()).isEqualTo(TERMINATED);
        // The server drops a terminated channel from its answer; so does the client.
        assertThat(session.heldChannels()).extracting(HeldChannel::channelId).containsExactly("c2");
        session.heartbeatOnce();
        assertThat(server.requests().lastHeartbeat())
                .containsExactly(new HeldChannel("c2", 1, OPEN));
    }

    @Test
    void closingWhileTheFinishAwaitsItsCommitReportsCloseAndTerminatesWhenReoffered() {
        server.addChannel("c1");
        TunnelSession session = open();
        server.requestClose("c1");

        session.heartbeatOnce(); // finish not committed: CLOSE v3, never TERMINATED
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 3, CLOSE));
        session.markFinishedCommitted("c1");
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 3, CLOSE));

        session.heartbeatOnce(); // reports CLOSE v3; re-offered OPEN v4 -> TERMINATED v5
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 5, TERMINATED));
        assertThat(session.openChannelIds()).isEmpty();
        session.heartbeatOnce();
        assertThat(server.channel("c1").status()).isEqualTo(TERMINATED);
    }

    @Test
    void closingAfterTheCommitIsAnsweredWithTerminated() {
        server.addChannel("c1");
        TunnelSession session = open();
        session.markFinishedCommitted("c1"); // TERMINATED v2 locally
        server.script().answerNextHeartbeat(List.of(new AssignedChannel("c1", 2, CLOSING)));

        session.heartbeatOnce(); // the server's v2 wins the tie; CLOSING + finished -> TERMINATED

        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 3, TERMINATED));
    }

    @Test
    void theHigherVersionWinsAndAStaleAnswerDoesNotUndoALocalChange() {
        server.addChannel("c1").addChannel("c2");
        TunnelSession session = open();
        session.markFinishedCommitted("c1"); // TERMINATED v2 locally
        server.script()
                .answerNextHeartbeat(
                        List.of(
                                new AssignedChannel("c1", 1, OPEN),
                                new AssignedChannel("c2", 7, OPEN)));

        session.heartbeatOnce();

        assertThat(session.heldChannels())
                .containsExactly(
                        new HeldChannel("c1", 2, TERMINATED), new HeldChannel("c2", 7, OPEN));
    }

    @Test
    void channelsMissingFromTheAnswerAreDropped() {
        server.addChannel("c1").addChannel("c2");
        TunnelSession session = open();
        server.script().answerNextHeartbeat(List.of(new AssignedChannel("c2", 1, OPEN)));

        session.heartbeatOnce();

        assertThat(session.openChannelIds()).containsExactly("c2");
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c2", 1, OPEN));
    }

    @Test
    void anExpiredTunnelStopsTheSessionAndKeepsTheErrorForCallers() {
        server.addChannel("c1");
        TunnelSession session = open();
        server.script().expire();

        session.heartbeatOnce();
        int callsAfterStop = server.requests().calls().size();
        session.heartbeatOnce();

        assertThat(session.isStopped()).isTrue();
        assertThat(session.failure()).map(TunnelException::kind).contains(Kind.EXPIRED);
        assertThat(session.openChannelIds()).isEmpty();
        assertThat(server.requests().calls()).hasSize(callsAfterStop);
        assertThatThrownBy(session::checkHealthy)
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EXPIRED))
                .hasMessageContaining("expired");
    }

    @Test
    void anInvalidParameterInAHeartbeatStopsTheSession() {
        server.addChannel("c1");
        TunnelSession session = open();
        server.script()
                .failNext(
                        "heartbeat",
                        new TunnelException(
                                Kind.INVALID, "OTSParameterInvalid", "client gone", null));

        session.heartbeatOnce();

        assertThat(session.failure()).map(TunnelException::kind).contains(Kind.INVALID);
        session.close();
        assertThat(server.requests().calls()).doesNotContain("shutdown");
    }

    @Test
    void transientHeartbeatFailuresAreToleratedUntilTheHeartbeatTimeoutPasses() {
        server.addChannel("c1");
        TunnelSession session = open();
        TunnelException busy =
                new TunnelException(Kind.RETRIES_EXHAUSTED, "OTSServerBusy", "busy", null);

        clock.advance(Duration.ofSeconds(30));
        server.script().failNext("heartbeat", busy);
        session.heartbeatOnce();
        assertThat(session.isStopped()).isFalse();
        assertThat(session.openChannelIds()).containsExactly("c1");

        clock.advance(Duration.ofSeconds(31));
        server.script().failNext("heartbeat", busy);
        session.heartbeatOnce();

        assertThat(session.failure())
                .hasValueSatisfying(
                        e -> {
                            assertThat(e.kind()).isEqualTo(Kind.LOST_OWNERSHIP);
                            assertThat(e.getMessage())
                                    .contains("heartbeat timeout of 60 s")
                                    .contains("Restart the consumer");
                        });
    }

    @Test
    void aSuccessfulHeartbeatResetsTheTimeout() {
        server.addChannel("c1");
        TunnelSession session = open();
        clock.advance(Duration.ofSeconds(50));
        session.heartbeatOnce();
        clock.advance(Duration.ofSeconds(50));
        server.script().failNext("heartbeat", new TunnelException(Kind.RETRIES_EXHAUSTED, "busy"));

        session.heartbeatOnce();

        assertThat(session.isStopped()).isFalse();
    }

    @Test
    void openFailsAtOnceOnAnExpiredTunnel() {
        server.script().expire();

        assertThatThrownBy(this::open)
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EXPIRED));
    }

    @Test
    void aFailedFirstHeartbeatShutsTheNewClientDown() {
        server.addChannel("c1");
        server.script().failNext("heartbeat", new TunnelException(Kind.INVALID, "bad"));

        assertThatThrownBy(this::open).isInstanceOf(TunnelException.class);
        assertThat(server.requests().calls()).containsExactly("connect", "heartbeat", "shutdown");
    }

    @Test
    void closeShutsTheClientDownSoItsChannelsAreReleasedAtOnce() {
        server.addChannel("c1");
        TunnelSession session = open();

        session.close();
        session.close();

        assertThat(server.requests().calls()).containsOnlyOnce("shutdown");
        assertThat(server.channel("c1").owner()).isEmpty();
        assertThat(session.openChannelIds()).isEmpty();
        assertThatThrownBy(session::checkHealthy)
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.LOST_OWNERSHIP));
    }

    @Test
    void checkpointsTrackTheSequenceNumberAfterOneInitialRead() {
        server.addChannel("c1");
        TunnelSession session = open();

        session.checkpoint("c1", ChannelPosition.at("tok-1"));
        session.checkpoint("c1", ChannelPosition.at("tok-2", 5));

        assertThat(server.requests().calls().stream().filter(c -> c.startsWith("getCheckpoint")))
                .containsExactly("getCheckpoint:c1");
        assertThat(server.channel("c1").checkpoint()).isEqualTo("tok-2");
        assertThat(server.channel("c1").sequence()).isEqualTo(2);
        assertThat(server.resyncs()).isZero();
    }

    @Test
    void aStaleSequenceNumberIsResynchronised() {
        server.addChannel("c1");
        TunnelSession session = open();
        session.checkpoint("c1", ChannelPosition.at("tok-1"));
        server.checkpointedElsewhere("c1", 9);

        session.checkpoint("c1", ChannelPosition.at("tok-2"));
        session.checkpoint("c1", ChannelPosition.at("tok-3"));

        assertThat(server.resyncs()).isEqualTo(1);
        assertThat(server.channel("c1").sequence()).isEqualTo(11);
        assertThat(server.channel("c1").checkpoint()).isEqualTo("tok-3");
    }

    @Test
    void checkpointingFinishedMarksTheChannelFinishedCommitted() {
        server.addChannel("c1");
        TunnelSession session = open();

        session.checkpoint("c1", ChannelPosition.finished());

        assertThat(server.channel("c1").checkpoint()).isEqualTo("finished");
        assertThat(session.heldChannels()).containsExactly(new HeldChannel("c1", 2, TERMINATED));
    }

    @Test
    void scheduledHeartbeatsRunEveryIntervalUntilClose() throws Exception {
        server.addChannel("c1");
        TunnelSession session = open();
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        scheduler.setRemoveOnCancelPolicy(true);
        try {
            session.startHeartbeats(scheduler);

            assertThat(scheduler.getQueue()).hasSize(1);
            long delay =
                    ((java.util.concurrent.ScheduledFuture<?>) scheduler.getQueue().peek())
                            .getDelay(TimeUnit.MILLISECONDS);
            assertThat(delay).isBetween(9_000L, 10_000L);
            assertThatThrownBy(() -> session.startHeartbeats(scheduler))
                    .isInstanceOf(IllegalStateException.class);

            session.close();

            assertThat(scheduler.getQueue()).isEmpty();
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void heldChannelsNeverCarryWait() {
        assertThatThrownBy(() -> new HeldChannel("c1", 1, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WAIT")
                .hasMessageContaining("never");
    }

    @Test
    void configRejectsTooShortIntervalsAndTimeouts() {
        assertThatThrownBy(
                        () ->
                                new TunnelSessionConfig(
                                        "t", Duration.ofSeconds(2), Duration.ofSeconds(60)))
                .hasMessageContaining("at least 5 s");
        assertThatThrownBy(
                        () ->
                                new TunnelSessionConfig(
                                        "t", Duration.ofSeconds(10), Duration.ofSeconds(15)))
                .hasMessageContaining("at least twice the heartbeat interval");
        assertThat(TunnelSessionConfig.withDefaults("t").heartbeatInterval())
                .isEqualTo(Duration.ofSeconds(10));
    }

    private boolean terminated(HeldChannel channel) {
        return channel.status() == TERMINATED;
    }

    private static ReadResult finishedPage() {
        return new ReadResult(List.of(), ChannelPosition.finished(), false);
    }
}
