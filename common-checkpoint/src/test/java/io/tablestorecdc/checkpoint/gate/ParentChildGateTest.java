package io.tablestorecdc.checkpoint.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ParentChildGateTest {

    private static final ParentChildGate STREAM_GATE =
            new ParentChildGate(TunnelType.STREAM, Optional.of("me"));
    private static final ParentChildGate STAGED_GATE =
            new ParentChildGate(TunnelType.BASE_AND_STREAM, Optional.of("me"));

    @Test
    void readsOnlyWhatTheServerOpenedToThisClient() {
        GateDecision d =
                STREAM_GATE.decide(
                        entries(unfinished("open"), unfinished("wait"), unfinished("mine")),
                        listing(
                                server("open", ServerChannelStatus.OPEN),
                                server("wait", ServerChannelStatus.WAIT),
                                new ServerChannel(
                                        "mine",
                                        ChannelType.STREAM,
                                        ServerChannelStatus.OPEN,
                                        Optional.of("me"),
                                        0L)));

        assertThat(d.readable()).containsExactly("mine", "open");
        assertThat(d.held()).containsExactly(Map.entry("wait", HoldReason.WAITING_ON_SERVER));
    }

    @Test
    void withoutAClientIdAnAssignedChannelIsNotHeldForItsAssignment() {
        ParentChildGate gate = new ParentChildGate(TunnelType.STREAM, Optional.empty());
        ServerChannel other =
                new ServerChannel(
                        "a", ChannelType.STREAM, ServerChannelStatus.OPEN, Optional.of("x"), 0L);

        assertThat(gate.decide(entries(unfinished("a")), listing(other)).readable())
                .containsExactly("a");
    }

    @Test
    void neverReadsATombstoneEvenIfAStaleListingSaysOpen() {
        GateDecision d =
                STREAM_GATE.decide(
                        entries(finished("f")), listing(server("f", ServerChannelStatus.OPEN)));

        assertThat(d.readable()).isEmpty();
        assertThat(d.held()).isEmpty();
    }

    @Test
    void reReadsTheTailOfAChannelTheServerTerminatedAheadOfTheEngine() {
        GateDecision d =
                STREAM_GATE.decide(
                        entries(unfinished("a")),
                        listing(server("a", ServerChannelStatus.TERMINATED)));

        assertThat(d.readable()).containsExactly("a");
    }

    @Test
    void listedButUnadoptedChannelIsHeldWithItsReason() {
        GateDecision d =
                STREAM_GATE.decide(
                        Map.of(),
                        listing(
                                server("w", ServerChannelStatus.WAIT),
                                server("o", ServerChannelStatus.OPEN),
                                server("t", ServerChannelStatus.TERMINATED)));

        assertThat(d.held())
                .containsExactly(
                        Map.entry("o", HoldReason.NOT_ADOPTED),
                        Map.entry("w", HoldReason.WAITING_ON_SERVER));
    }

    @Test
    void stageGateHoldsStreamsUntilEveryBaseChannelFinished() {
        Map<String, ServerChannel> listing =
                listing(
                        server("base1", ServerChannelStatus.OPEN),
                        server("base2", ServerChannelStatus.OPEN),
                        server("s1", ServerChannelStatus.OPEN));

        GateDecision during =
                STAGED_GATE.decide(
                        entries(finished("base1"), unfinished("base2"), unfinished("s1")), listing);
        GateDecision after =
                STAGED_GATE.decide(
                        entries(finished("base1"), finished("base2"), unfinished("s1")), listing);

        assertThat(during.readable()).containsExactly("base2");
        assertThat(during.held()).containsExactly(Map.entry("s1", HoldReason.BASE_DATA_UNFINISHED));
        assertThat(after.readable()).containsExactly("s1");
    }

    @Test
    void stageGateCountsABaseChannelOnlyTheServerKnows() {
        GateDecision d =
                STAGED_GATE.decide(
                        entries(unfinished("s1")),
                        listing(
                                server("base9", ServerChannelStatus.CLOSE),
                                server("s1", ServerChannelStatus.OPEN)));

        assertThat(d.readable()).isEmpty();
        assertThat(d.held()).containsEntry("s1", HoldReason.BASE_DATA_UNFINISHED);
    }

    @Test
    void stageGateIgnoresBaseChannelsTheServerTerminatedBeforeUs() {
        GateDecision d =
                STAGED_GATE.decide(
                        entries(unfinished("s1")),
                        listing(
                                server("base9", ServerChannelStatus.TERMINATED),
                                server("s1", ServerChannelStatus.OPEN)));

        assertThat(d.readable()).containsExactly("s1");
    }

    @Test
    void baseDataTunnelHasNoStageGate() {
        ParentChildGate gate = new ParentChildGate(TunnelType.BASE_DATA, Optional.empty());
        GateDecision d =
                gate.decide(
                        entries(unfinished("base1"), unfinished("s1")),
                        listing(
                                server("base1", ServerChannelStatus.OPEN),
                                server("s1", ServerChannelStatus.OPEN)));

        assertThat(d.readable()).containsExactly("base1", "s1");
    }

    static ChannelCheckpoint unfinished(String id) {
        return ChannelCheckpoint.adopted(id, typeOf(id), ChannelPosition.at(id + "-0"));
    }

    static ChannelCheckpoint finished(String id) {
        return unfinished(id).advancedTo(ChannelPosition.finished(), 1, SequenceInfo.NONE);
    }

    static ServerChannel server(String id, ServerChannelStatus status) {
        return ServerChannel.of(id, typeOf(id), status);
    }

    static Map<String, ChannelCheckpoint> entries(ChannelCheckpoint... e) {
        return Arrays.stream(e)
                .collect(
                        Collectors.toMap(
                                ChannelCheckpoint::channelId,
                                Function.identity(),
                                (a, b) -> a,
                                TreeMap::new));
    }

    static Map<String, ServerChannel> listing(ServerChannel... c) {
        return Arrays.stream(c)
                .collect(
                        Collectors.toMap(
                                ServerChannel::channelId,
                                Function.identity(),
                                (a, b) -> a,
                                TreeMap::new));
    }

    private static ChannelType typeOf(String id) {
        return id.startsWith("base") ? ChannelType.BASE_DATA : ChannelType.STREAM;
    }
}
