package io.tablestorecdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.ServerAheadException;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.testing.FakeServices;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Given/When/Then scenarios of the enumerator on Flink's mock context and a fake tunnel server. */
class TablestoreCdcEnumeratorTest {

    private static final String TUNNEL_ID = "tunnel-1";

    private FakeTunnelService server = FakeServices.ordersTunnel(TUNNEL_ID, TunnelType.STREAM);
    private final InMemoryMetaTableClient meta = new InMemoryMetaTableClient();
    private MockSplitEnumeratorContext<ChannelSplit> context;
    private SplitEnumerator<ChannelSplit, EnumeratorState> enumerator;
    private Instant stopAt; // none: continuous
    private ServerAheadPolicy onServerAhead = ServerAheadPolicy.FAIL;

    @AfterEach
    void close() throws Exception {
        if (enumerator != null) {
            enumerator.close();
        }
        if (context != null) {
            context.close();
        }
    }

    // ---- assignment ----

    @Test
    void firstAssignmentWaitsForAllReadersThenBalances() throws Throwable {
        givenStreamChannels("a", "b", "c", "d");
        start(2, EnumeratorState.initial());

        registerReaders(0);
        discover();
        assertThat(assignments()).isEmpty();

        registerReaders(1);
        assertThat(assignments())
                .containsOnlyKeys(0, 1)
                .allSatisfy((reader, ids) -> assertThat(ids).hasSize(2));
        assertThat(allAssigned()).containsExactlyInAnyOrder("a", "b", "c", "d");
    }

    @Test
    void everyReaderLearnsTheTunnelClient() throws Throwable {
        givenStreamChannels("a");
        start(2, EnumeratorState.initial());

        registerReaders(0, 1);

        Map<Integer, List<org.apache.flink.api.connector.source.SourceEvent>> sent =
                context.getSentSourceEvent();
        assertThat(sent.get(0)).singleElement().isInstanceOf(TunnelClientEvent.class);
        assertThat(sent.get(1)).singleElement().isInstanceOf(TunnelClientEvent.class);
    }

    @Test
    void newChannelGoesToTheLeastLoadedReader() throws Throwable {
        givenStreamChannels("a", "b", "c");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();
        assertThat(assignments().get(1)).containsExactly("b");

        enumerator.handleSourceEvent(1, finished("b"));
        server.channel("d", ChannelType.STREAM);
        forceHeartbeatAndDiscover();

        assertThat(lastAssignment()).containsOnlyKeys(1);
        assertThat(lastAssignment().get(1)).extracting(ChannelSplit::splitId).containsExactly("d");
    }

    @Test
    void newChannelStartsAtTheServerCheckpoint() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        assertThat(lastAssignment().get(0))
                .containsExactly(
                        new ChannelSplit("a", ChannelType.STREAM, ChannelPosition.at("a@0")));
    }

    @Test
    void splitsGivenBackGoToARegisteredReader() throws Throwable {
        givenStreamChannels("a", "b");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();
        ChannelSplit lost = lastAssignmentFlat().get(0);

        context.unregisterReader(0);
        enumerator.addSplitsBack(List.of(lost), 0);

        assertThat(lastAssignment()).containsOnlyKeys(1);
        assertThat(lastAssignmentFlat()).containsExactly(lost);
    }

    // ---- lineage: split, merge, chains (invariant 3 and 4) ----

    @Test
    void childrenOfASplitWaitUntilTheParentFinishIsCommitted() throws Throwable {
        givenStreamChannels("p");
        server.channel("c1", ChannelType.STREAM, "p").channel("c2", ChannelType.STREAM, "p");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();

        // When the reader reports p finished, nothing reaches the server before a checkpoint.
        enumerator.handleSourceEvent(0, finished("p"));
        forceHeartbeatAndDiscover();
        assertThat(server.finishesReceived()).isEmpty();
        assertThat(allAssigned()).containsExactly("p");

        checkpoint(1);
        forceHeartbeatAndDiscover();

        assertThat(server.finishesReceived()).containsExactly("p");
        assertThat(allAssigned()).containsExactlyInAnyOrder("p", "c1", "c2");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void mergeChildWaitsForTheLastParentInEitherOrder(boolean aFirst) throws Throwable {
        givenStreamChannels("a", "b");
        server.channel("m", ChannelType.STREAM, "a", "b");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();
        String first = aFirst ? "a" : "b";
        String second = aFirst ? "b" : "a";

        enumerator.handleSourceEvent(0, finished(first));
        checkpoint(1);
        forceHeartbeatAndDiscover();
        assertThat(allAssigned()).doesNotContain("m");

        enumerator.handleSourceEvent(1, finished(second));
        checkpoint(2);
        forceHeartbeatAndDiscover();
        assertThat(allAssigned()).contains("m");
        assertThat(server.finishesReceived()).containsExactly(first, second);
    }

    @Test
    void grandchildrenWaitForTheirParentNotTheGrandparent() throws Throwable {
        givenStreamChannels("a");
        server.channel("b", ChannelType.STREAM, "a").channel("c", ChannelType.STREAM, "b");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.handleSourceEvent(0, finished("a"));
        checkpoint(1);
        forceHeartbeatAndDiscover();
        assertThat(allAssigned()).containsExactlyInAnyOrder("a", "b");

        enumerator.handleSourceEvent(0, finished("b"));
        checkpoint(2);
        forceHeartbeatAndDiscover();
        assertThat(allAssigned()).containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void aFinishReportedAfterSnapshotNIsPushedOnlyAfterALaterCheckpoint() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.snapshotState(1);
        enumerator.handleSourceEvent(0, finished("a"));
        enumerator.notifyCheckpointComplete(1);
        runAsync();
        assertThat(server.finishesReceived()).isEmpty();

        checkpoint(2);
        assertThat(server.finishesReceived()).containsExactly("a");
    }

    @Test
    void aFinishInAnAbortedCheckpointIsPushedByTheNextCompletedOne() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        enumerator.handleSourceEvent(0, finished("a"));

        enumerator.snapshotState(1); // checkpoint 1 is aborted: no notification
        checkpoint(2);

        assertThat(server.finishesReceived()).containsExactly("a");
    }

    @Test
    void aFinishOfAReaderRestartedBeforeItWasCommittedIsUndoneAndNeverPushed() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        checkpoint(1); // the reader's state holds "a" unfinished
        enumerator.handleSourceEvent(0, finished("a"));
        enumerator.snapshotState(2); // aborted: the reader fails

        // A regional failover keeps the enumerator and restarts the reader from checkpoint 1.
        enumerator.addSplitsBack(List.of(), 0);

        assertThat(stateOf(enumerator.snapshotState(3))).containsEntry("a", SplitStatus.ASSIGNED);
        enumerator.notifyCheckpointComplete(3);
        runAsync();
        assertThat(server.finishesReceived())
                .as("a finish the restarted reader has not reported again")
                .isEmpty();

        enumerator.handleSourceEvent(0, finished("a")); // read again to its end
        checkpoint(4);
        checkpoint(5);
        assertThat(server.finishesReceived()).containsExactly("a");
    }

    @Test
    void aCommittedFinishStaysFinishedWhenItsReaderRestartsLater() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        enumerator.handleSourceEvent(0, finished("a"));
        checkpoint(1);

        enumerator.addSplitsBack(List.of(), 0);

        assertThat(stateOf(enumerator.snapshotState(2))).containsEntry("a", SplitStatus.FINISHED);
        assertThat(server.finishesReceived()).containsExactly("a");
    }

    @Test
    void aFinishCommittedByTheReadersPositionsStaysFinishedWhenItsReaderRestarts()
            throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        checkpoint(1);
        enumerator.handleSourceEvent(0, finished("a"));
        // The reader's checkpoint 2 held the finish; it completed before the enumerator's did.
        enumerator.handleSourceEvent(
                0,
                new CommittedPositionsEvent(
                        2,
                        List.of(
                                new ChannelSplit(
                                        "a", ChannelType.STREAM, ChannelPosition.finished()))));

        enumerator.addSplitsBack(List.of(), 0); // restarted from checkpoint 2: "a" is not in it

        assertThat(stateOf(enumerator.snapshotState(3))).containsEntry("a", SplitStatus.FINISHED);
    }

    @Test
    void aChannelAssignedAndFinishedAfterTheLastCheckpointIsReadAgainAfterARestart()
            throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        ChannelSplit a = lastAssignmentFlat().get(0);
        enumerator.handleSourceEvent(0, finished("a"));

        // No checkpoint holds the assignment: Flink gives the split back.
        enumerator.addSplitsBack(List.of(a), 0);

        assertThat(lastAssignmentFlat()).containsExactly(a);
        assertThat(stateOf(enumerator.snapshotState(1))).containsEntry("a", SplitStatus.ASSIGNED);
    }

    @Test
    void repeatedFinishedEventsAreIdempotent() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.handleSourceEvent(0, finished("a"));
        enumerator.handleSourceEvent(0, finished("a"));
        checkpoint(1);
        enumerator.handleSourceEvent(0, finished("a"));
        checkpoint(2);

        assertThat(server.requests().pushes()).containsExactly("a finished");
        assertThat(stateOf(enumerator.snapshotState(3))).containsEntry("a", SplitStatus.FINISHED);
    }

    @Test
    void aFinishedEventForAnUnknownChannelBecomesATombstoneWithoutCrash() throws Throwable {
        givenStreamChannels("a");
        server.channel("x", ChannelType.STREAM);
        start(1, EnumeratorState.initial());

        enumerator.handleSourceEvent(0, finished("x")); // before any reader registered
        registerReaders(0);
        discover();

        assertThat(allAssigned()).containsExactly("a");
        assertThat(server.finishesReceived()).isEmpty();
        checkpoint(1);
        assertThat(server.finishesReceived()).containsExactly("x");
    }

    @Test
    void finishedChannelsStillListedOpenAreNeverReadAgain() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.handleSourceEvent(0, finished("a"));
        discover();
        discover();

        assertThat(context.getSplitsAssignmentSequence()).hasSize(1);
    }

    // ---- restore ----

    @Test
    void restoreWithPartlyFinishedParentsKeepsTheMergeChildWaiting() throws Throwable {
        givenStreamChannels("a", "b");
        server.channel("m", ChannelType.STREAM, "a", "b");
        EnumeratorState saved =
                state(
                        entry("a", ChannelPosition.finished(), SplitStatus.FINISHED),
                        entry("b", ChannelPosition.at("b@1"), SplitStatus.ASSIGNED));
        start(1, saved);
        runAsync(); // the restored (durable) finish of a is pushed at start
        registerReaders(0);
        forceHeartbeatAndDiscover();

        assertThat(server.finishesReceived()).containsExactly("a");
        assertThat(allAssigned()).isEmpty(); // b lives in the restored reader state

        enumerator.handleSourceEvent(0, finished("b"));
        checkpoint(5);
        forceHeartbeatAndDiscover();
        assertThat(allAssigned()).containsExactly("m");
    }

    @Test
    void restoreDoesNotPushFinishesTheServerAlreadyHasOrNoLongerLists() throws Throwable {
        givenStreamChannels("a", "b");
        server.finishedOnServer("a");
        start(
                1,
                state(
                        entry("a", ChannelPosition.finished(), SplitStatus.FINISHED),
                        entry("gone", ChannelPosition.finished(), SplitStatus.FINISHED),
                        entry("b", ChannelPosition.finished(), SplitStatus.FINISHED)));
        runAsync();
        checkpoint(1); // the restored tombstones are in its snapshot: still nothing to push
        checkpoint(2);

        assertThat(server.requests().pushes()).containsExactly("b finished");
    }

    // ---- restoring from older state (docs/exactly-once.md, "Restoring from older state") ----

    @Test
    void aRestoredChannelTheServerFinishedSinceFailsTheStartNamingIt() {
        givenStreamChannels("a", "b");
        server.finishedOnServer("a");
        EnumeratorState older =
                new EnumeratorState(
                        Optional.of(TUNNEL_ID),
                        Optional.empty(),
                        state(
                                        entry(
                                                "a",
                                                ChannelPosition.at("a@3", 1),
                                                SplitStatus.UNASSIGNED),
                                        entry("b", ChannelPosition.at("b@1"), SplitStatus.ASSIGNED))
                                .splits(),
                        Optional.of(7L));

        assertThatThrownBy(() -> start(2, older))
                .isInstanceOf(ServerAheadException.class)
                .hasMessageContaining("The job on tunnel 'orders-tunnel' of table")
                .hasMessageContaining("(Flink checkpoint or savepoint 7)")
                .hasMessageContaining("a: every change after position a@3+1")
                .hasMessageContaining("Nothing was delivered")
                .hasMessageContaining("on.server.ahead=skip");
        assertThat(server.requests().pushes()).isEmpty();
    }

    /**
     * The enumerator's snapshot is taken before the readers': a reader may read a channel to its
     * end and report it between the two, so the checkpoint's reader state holds the finish, and the
     * server gets it when the checkpoint completes, while the enumerator's state still holds the
     * channel assigned. Restoring that checkpoint is restoring the newest state: the start must not
     * fail, and the reader holding the channel judges it.
     */
    @Test
    void aRestoredAssignedChannelTheServerFinishedIsLeftToItsReaderAndNeverPushedAgain()
            throws Throwable {
        givenStreamChannels("a", "b");
        server.finishedOnServer("a");
        start(
                2,
                new EnumeratorState(
                        Optional.of(TUNNEL_ID),
                        Optional.empty(),
                        state(
                                        entry(
                                                "a",
                                                ChannelPosition.at("a@3", 1),
                                                SplitStatus.ASSIGNED),
                                        entry("b", ChannelPosition.at("b@1"), SplitStatus.ASSIGNED))
                                .splits(),
                        Optional.of(7L)));
        registerReaders(0, 1);

        TunnelClientEvent event = (TunnelClientEvent) context.getSentSourceEvent().get(0).get(0);
        assertThat(event.skipped()).isEmpty();
        assertThat(event.serverFinished().channelIds()).containsExactly("a");
        assertThat(event.serverFinished().policy()).isEqualTo(ServerAheadPolicy.FAIL);
        assertThat(event.serverFinished().restoredFrom())
                .isEqualTo("Flink checkpoint or savepoint 7");
        assertThat(context.getSentSourceEvent().get(1)).containsExactly(event);

        enumerator.handleSourceEvent(0, finished("a")); // the reader's state held it finished
        enumerator.snapshotState(8);
        enumerator.notifyCheckpointComplete(8);
        enumerator.handleSourceEvent(
                0,
                new CommittedPositionsEvent(
                        8,
                        List.of(
                                new ChannelSplit(
                                        "a", ChannelType.STREAM, ChannelPosition.finished())),
                        Set.of()));
        forceHeartbeatAndDiscover();
        assertThat(server.finishesReceived()).as("the server had finished it").isEmpty();
        assertThat(stateOf(enumerator.snapshotState(9))).containsEntry("a", SplitStatus.FINISHED);
    }

    /**
     * While a reader judges a restored assigned channel the server finished, nothing new is
     * assigned: under {@code fail} the reader fails before any other channel reaches a reader (the
     * job fails with the reason, not with a split event lost to a failed reader), and under {@code
     * skip} the channels the server opened after it are read once it has ended.
     */
    @Test
    void nothingNewIsAssignedUntilTheReaderHasJudgedARestoredChannelTheServerFinished()
            throws Throwable {
        givenStreamChannels("a", "c");
        server.finishedOnServer("a");
        start(
                1,
                new EnumeratorState(
                        Optional.of(TUNNEL_ID),
                        Optional.empty(),
                        state(entry("a", ChannelPosition.at("a@3", 1), SplitStatus.ASSIGNED))
                                .splits(),
                        Optional.of(7L)));
        registerReaders(0);
        forceHeartbeatAndDiscover();

        assertThat(allAssigned()).as("held while the reader judges a").isEmpty();

        enumerator.handleSourceEvent(0, finished("a")); // ended unread under skip
        assertThat(allAssigned()).containsExactly("c");
    }

    @Test
    void withSkipARestoredChannelTheServerFinishedEndsUnreadAndTheOthersGoOn() throws Throwable {
        onServerAhead = ServerAheadPolicy.SKIP;
        givenStreamChannels("a", "b");
        server.finishedOnServer("a");
        start(
                1,
                state(
                        entry("a", ChannelPosition.at("a@3", 1), SplitStatus.UNASSIGNED),
                        entry("b", ChannelPosition.at("b@1"), SplitStatus.UNASSIGNED)));

        registerReaders(0);
        runAsync();

        assertThat(context.getSentSourceEvent().get(0))
                .singleElement()
                .isEqualTo(
                        new TunnelClientEvent(
                                ((TunnelClientEvent) context.getSentSourceEvent().get(0).get(0))
                                        .clientId(),
                                Set.of("a")));
        assertThat(allAssigned()).containsExactly("b");
        assertThat(stateOf(enumerator.snapshotState(1))).containsEntry("a", SplitStatus.FINISHED);
        assertThat(server.finishesReceived()).as("the server had finished it").isEmpty();
    }

    @Test
    void restoredUnassignedSplitsAreAssignedAtTheirSavedPosition() throws Throwable {
        givenStreamChannels("a");
        start(1, state(entry("a", ChannelPosition.at("a@7", 1), SplitStatus.UNASSIGNED)));
        registerReaders(0);

        assertThat(lastAssignmentFlat())
                .containsExactly(
                        new ChannelSplit("a", ChannelType.STREAM, ChannelPosition.at("a@7", 1)));
    }

    @Test
    void snapshotRoundTripsThroughTheSerializer() throws Throwable {
        givenStreamChannels("a", "b");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        enumerator.handleSourceEvent(0, finished("a"));

        EnumeratorState snapshot = enumerator.snapshotState(1);
        EnumeratorStateSerializer serializer = new EnumeratorStateSerializer();
        EnumeratorState copy =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(snapshot));

        assertThat(copy).isEqualTo(snapshot);
        assertThat(copy.tunnelId()).contains(TUNNEL_ID);
        assertThat(stateOf(copy))
                .containsEntry("a", SplitStatus.FINISHED)
                .containsEntry("b", SplitStatus.ASSIGNED);
    }

    @Test
    void restoreOntoARecreatedTunnelFailsWithAClearMessage() {
        givenStreamChannels("a");
        EnumeratorState foreign = new EnumeratorState(Optional.of("old-tunnel-id"), Map.of());

        assertThatThrownBy(() -> start(1, foreign))
                .hasMessageContaining("old-tunnel-id")
                .hasMessageContaining("re-created")
                .hasMessageContaining("without its checkpoint");
    }

    @Test
    void aMissingTunnelFailsWithTheFix() {
        assertThatThrownBy(() -> start(1, EnumeratorState.initial(), "no-such-tunnel"))
                .hasMessageContaining("does not exist")
                .hasMessageContaining("tunnel.create");
    }

    // ---- committed positions, tunnel types ----

    @Test
    void committedPositionsArePushedToTheServer() throws Throwable {
        givenStreamChannels("a");
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.handleSourceEvent(
                0,
                new CommittedPositionsEvent(
                        3,
                        List.of(
                                new ChannelSplit(
                                        "a", ChannelType.STREAM, ChannelPosition.at("a@4", 1)))));
        runAsync();

        assertThat(server.checkpointOf("a")).contains("a@4");
    }

    @Test
    void baseAndStreamReadsNoStreamChannelWhileBaseDataIsUnfinished() throws Throwable {
        server = FakeServices.ordersTunnel(TUNNEL_ID, TunnelType.BASE_AND_STREAM);
        server.channel("base1", ChannelType.BASE_DATA).channel("s1", ChannelType.STREAM);
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();
        assertThat(allAssigned()).containsExactly("base1");

        enumerator.handleSourceEvent(0, finished("base1"));
        checkpoint(1);
        forceHeartbeatAndDiscover();

        assertThat(allAssigned()).containsExactlyInAnyOrder("base1", "s1");
    }

    @Test
    void aBaseDataTunnelSignalsNoMoreSplitsWhenEveryChannelFinished() throws Throwable {
        server = FakeServices.ordersTunnel(TUNNEL_ID, TunnelType.BASE_DATA);
        server.channel("b1", ChannelType.BASE_DATA).channel("b2", ChannelType.BASE_DATA);
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();

        enumerator.handleSourceEvent(0, finished("b1"));
        assertThat(context.hasNoMoreSplits(0)).isFalse();
        enumerator.handleSourceEvent(1, finished("b2"));

        assertThat(context.hasNoMoreSplits(0)).isTrue();
        assertThat(context.hasNoMoreSplits(1)).isTrue();
    }

    // ---- an end position (scan.bounded.stop-at) ----

    @Test
    void withAnEndPositionTheSourceEndsWhenEveryChannelStoppedAndNoneIsFinishedOnTheServer()
            throws Throwable {
        stopAt = Instant.parse("2026-01-01T00:00:00Z");
        givenStreamChannels("a", "b");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();

        enumerator.handleSourceEvent(0, stopped("a"));
        assertThat(context.hasNoMoreSplits(0)).isFalse();
        enumerator.handleSourceEvent(1, stopped("b"));

        assertThat(context.hasNoMoreSplits(0)).isTrue();
        assertThat(context.hasNoMoreSplits(1)).isTrue();
        checkpoint(1);
        assertThat(server.finishesReceived()).as("a stop is not a finish").isEmpty();
    }

    @Test
    void withAnEndPositionTheChildrenOfAFinishedParentAreReadBeforeTheSourceEnds()
            throws Throwable {
        stopAt = Instant.parse("2026-01-01T00:00:00Z");
        givenStreamChannels("p", "q");
        server.channel("c1", ChannelType.STREAM, "p").channel("c2", ChannelType.STREAM, "p");
        server.channel("w", ChannelType.STREAM, "q"); // child of a stopped parent: stays WAIT
        start(1, EnumeratorState.initial());
        registerReaders(0);
        discover();

        enumerator.handleSourceEvent(0, finished("p"));
        enumerator.handleSourceEvent(0, stopped("q"));
        forceHeartbeatAndDiscover();
        assertThat(context.hasNoMoreSplits(0)).as("p's finish is not pushed yet").isFalse();
        checkpoint(1); // pushes p's finish: the server opens c1 and c2
        assertThat(context.hasNoMoreSplits(0)).as("no listing after the push yet").isFalse();
        forceHeartbeatAndDiscover();
        assertThat(lastAssignmentFlat()).extracting(ChannelSplit::splitId).contains("c1", "c2");
        enumerator.handleSourceEvent(0, stopped("c1"));
        assertThat(context.hasNoMoreSplits(0)).isFalse();
        enumerator.handleSourceEvent(0, stopped("c2"));

        assertThat(context.hasNoMoreSplits(0)).isTrue();
        assertThat(allAssigned()).doesNotContain("w");
    }

    @Test
    void aStoppedChannelGivenBackByAFailedReaderIsReadAgain() throws Throwable {
        stopAt = Instant.parse("2026-01-01T00:00:00Z");
        givenStreamChannels("a");
        start(2, EnumeratorState.initial());
        registerReaders(0, 1);
        discover();
        ChannelSplit a = lastAssignmentFlat().get(0);
        int owner = lastAssignment().keySet().iterator().next();
        enumerator.handleSourceEvent(owner, stopped("a"));

        // The reader fails before a checkpoint holds the stop: the split comes back.
        context.unregisterReader(owner);
        enumerator.addSplitsBack(List.of(a), owner);

        assertThat(lastAssignmentFlat()).containsExactly(a);
        assertThat(stateOf(enumerator.snapshotState(1))).containsEntry("a", SplitStatus.ASSIGNED);
    }

    // ---- harness ----

    private void givenStreamChannels(String... ids) {
        for (String id : ids) {
            server.channel(id, ChannelType.STREAM);
        }
    }

    private void start(int parallelism, EnumeratorState state) {
        start(parallelism, state, FakeServices.TUNNEL);
    }

    private void start(int parallelism, EnumeratorState state, String tunnel) {
        context = new MockSplitEnumeratorContext<>(parallelism);
        TablestoreCdcSource<String> source =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint("http://127.0.0.1:1")
                        .setInstanceName("test")
                        .setCredentials("id", "secret")
                        .setTableName(FakeServices.TABLE)
                        .setTunnelName(tunnel)
                        .setDiscoveryInterval(Duration.ofSeconds(1))
                        .setHeartbeatInterval(Duration.ofSeconds(5))
                        .setStopAt(stopAt)
                        .setOnServerAhead(onServerAhead)
                        .setDeserializer(new RecordStrings())
                        .setTunnelProxyFactory(
                                FakeServices.tunnelProxies(getClass().getName(), server))
                        .setMetaTableClientFactory(
                                FakeServices.metaTables(getClass().getName(), meta))
                        .build();
        enumerator = source.restoreEnumerator(context, state);
        enumerator.start();
    }

    private void registerReaders(int... subtasks) {
        for (int subtask : subtasks) {
            context.registerReader(new ReaderInfo(subtask, "host-" + subtask));
            enumerator.addReader(subtask);
        }
    }

    private void discover() throws Throwable {
        context.runPeriodicCallable(0);
    }

    /** Pushes what is pending, then a discovery round that heartbeats first. */
    private void forceHeartbeatAndDiscover() throws Throwable {
        runAsync();
        ((TablestoreCdcEnumerator) enumerator).requestHeartbeat();
        discover();
    }

    private void runAsync() throws Throwable {
        while (!context.getOneTimeCallables().isEmpty()) {
            context.runNextOneTimeCallable();
        }
    }

    private void checkpoint(long id) throws Throwable {
        enumerator.snapshotState(id);
        enumerator.notifyCheckpointComplete(id);
        runAsync();
    }

    private static ChannelsStoppedEvent stopped(String... ids) {
        return new ChannelsStoppedEvent(List.of(ids));
    }

    private static ChannelsFinishedEvent finished(String... ids) {
        return new ChannelsFinishedEvent(List.of(ids));
    }

    private Map<Integer, Set<String>> assignments() {
        Map<Integer, Set<String>> out = new TreeMap<>();
        for (SplitsAssignment<ChannelSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .forEach(
                            (reader, splits) ->
                                    splits.forEach(
                                            s ->
                                                    out.computeIfAbsent(
                                                                    reader, k -> new TreeSet<>())
                                                            .add(s.splitId())));
        }
        return out;
    }

    private Set<String> allAssigned() {
        Set<String> out = new TreeSet<>();
        assignments().values().forEach(out::addAll);
        return out;
    }

    private Map<Integer, List<ChannelSplit>> lastAssignment() {
        List<SplitsAssignment<ChannelSplit>> all = context.getSplitsAssignmentSequence();
        assertThat(all).isNotEmpty();
        return all.get(all.size() - 1).assignment();
    }

    private List<ChannelSplit> lastAssignmentFlat() {
        return lastAssignment().values().stream().flatMap(List::stream).toList();
    }

    private static EnumeratorState.Entry entry(
            String id, ChannelPosition position, SplitStatus status) {
        return new EnumeratorState.Entry(
                new ChannelSplit(id, ChannelType.STREAM, position), status);
    }

    private static EnumeratorState state(EnumeratorState.Entry... entries) {
        Map<String, EnumeratorState.Entry> map = new TreeMap<>();
        for (EnumeratorState.Entry e : entries) {
            map.put(e.split().splitId(), e);
        }
        return new EnumeratorState(Optional.of(TUNNEL_ID), map);
    }

    private static Map<String, SplitStatus> stateOf(EnumeratorState state) {
        Map<String, SplitStatus> out = new TreeMap<>();
        state.splits().forEach((id, e) -> out.put(id, e.status()));
        return out;
    }
}
