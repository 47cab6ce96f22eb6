package io.tablestorecdc.checkpoint.merge;

import static io.tablestorecdc.checkpoint.gate.HoldReason.ASSIGNED_TO_OTHER_CLIENT;
import static io.tablestorecdc.checkpoint.gate.HoldReason.BASE_DATA_UNFINISHED;
import static io.tablestorecdc.checkpoint.gate.HoldReason.NOT_LISTED;
import static io.tablestorecdc.checkpoint.gate.HoldReason.NOT_OPEN;
import static io.tablestorecdc.checkpoint.gate.HoldReason.WAITING_ON_SERVER;
import static io.tablestorecdc.checkpoint.merge.Channels.finished;
import static io.tablestorecdc.checkpoint.merge.Channels.listed;
import static io.tablestorecdc.checkpoint.merge.Channels.listedFor;
import static io.tablestorecdc.checkpoint.merge.Channels.pending;
import static io.tablestorecdc.checkpoint.merge.Channels.reading;
import static io.tablestorecdc.checkpoint.merge.MergeScenario.scenario;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.CLOSE;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.CLOSING;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.OPEN;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.TERMINATED;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The merge of a committed checkpoint with the server's listing, case by case as a table: children
 * of unfinished or unpushed parents held, finished parents as tombstones, crashes before and after
 * a parent's tail was committed, vanished channels, where each readable channel starts.
 */
class CheckpointMergerTest {

    static Stream<MergeScenario> cases() {
        return Stream.of(
                scenario("child of a WAIT parent lineage is never readable while WAIT")
                        .committed(reading("p", "p-4"))
                        .listing(listed("p", OPEN), listed("c", WAIT))
                        .serverCheckpoint("c", "c-0")
                        .readable("p")
                        .held("c", WAITING_ON_SERVER)
                        .adopted("c"),
                scenario("child becomes readable from its start once OPEN after the push")
                        .committed(finished("p"), pending("c", "c-0"))
                        .listing(listed("p", TERMINATED), listed("c", OPEN))
                        .serverCheckpoint("c", "c-77")
                        .readable("c")
                        .startsAt("c", ChannelPosition.at("c-0")),
                scenario("10 parent FINISHED in meta, push lost: tombstone, children still WAIT")
                        .committed(finished("p"))
                        .listing(listed("p", OPEN), listed("c1", WAIT), listed("c2", WAIT))
                        .serverCheckpoint("c1", "c1-0")
                        .serverCheckpoint("c2", "c2-0")
                        .held("c1", WAITING_ON_SERVER)
                        .held("c2", WAITING_ON_SERVER)
                        .startsAt("p", ChannelPosition.finished())
                        .adopted("c1", "c2"),
                scenario("11 crash before the commit with the parent's tail: re-read from commit")
                        .committed(reading("p", "p-5"))
                        .listing(listed("p", OPEN), listed("c", WAIT))
                        .serverCheckpoint("c", "c-0")
                        .readable("p")
                        .held("c", WAITING_ON_SERVER)
                        .startsAt("p", ChannelPosition.at("p-5", 2))
                        .adopted("c"),
                scenario("12 finished event lost: parent READING in commit is read to its end")
                        .committed(reading("p", "p-9"), pending("c", "c-0"))
                        .listing(listed("p", OPEN), listed("c", WAIT))
                        .readable("p")
                        .held("c", WAITING_ON_SERVER),
                scenario("13 parent unknown to meta but served: adopted PENDING, child held")
                        .committed(reading("x", "x-1"))
                        .listing(listed("x", OPEN), listed("p", OPEN), listed("c", WAIT))
                        .serverCheckpoint("p", "p-0")
                        .serverCheckpoint("c", "c-0")
                        .readable("x", "p")
                        .held("c", WAITING_ON_SERVER)
                        .startsAt("p", ChannelPosition.at("p-0"))
                        .adopted("p", "c"),
                scenario("14 parent never adopted and not served: child read at server checkpoint")
                        .listing(listed("c", OPEN))
                        .serverCheckpoint("c", "c-3")
                        .readable("c")
                        .startsAt("c", ChannelPosition.at("c-3"))
                        .adopted("c"),
                scenario("14 parent TERMINATED before this consumer: tombstone, child read")
                        .listing(listed("p", TERMINATED), listed("c", OPEN))
                        .serverCheckpoint("c", "c-3")
                        .readable("c")
                        .startsAt("p", ChannelPosition.finished())
                        .adopted("p", "c"),
                scenario("19 server checkpoint ahead of meta: meta wins")
                        .committed(reading("a", "a-3"))
                        .listing(listed("a", OPEN))
                        .serverCheckpoint("a", "a-9")
                        .readable("a")
                        .startsAt("a", ChannelPosition.at("a-3", 2)),
                scenario("19 restored before adoption: restart at the recorded adoption")
                        .committed(reading("p", "p-1"))
                        .listing(listed("p", OPEN), listed("c", OPEN))
                        .serverCheckpoint("c", "c-50")
                        .adoptedBefore("c", "c-0")
                        .readable("p", "c")
                        .startsAt("c", ChannelPosition.at("c-0"))
                        .adopted("c")
                        .serverAhead("c"),
                scenario("adoption record of an uncommitted batch: same position, no warning")
                        .committed(reading("p", "p-1"))
                        .listing(listed("p", OPEN), listed("c", OPEN))
                        .serverCheckpoint("c", "c-0")
                        .adoptedBefore("c", "c-0")
                        .readable("p", "c")
                        .startsAt("c", ChannelPosition.at("c-0"))
                        .adopted("c"),
                scenario("20 server TERMINATED, meta READING, skip: the server's state adopted")
                        .onServerAhead(ServerAheadPolicy.SKIP)
                        .committed(reading("a", "a-3"), reading("b", "b-1"))
                        .listing(listed("a", TERMINATED), listed("b", OPEN))
                        .readable("b")
                        .startsAt("a", ChannelPosition.finished())
                        .skipped("a"),
                scenario("adopted by a later run and finished since, skip: tombstone, child read")
                        .onServerAhead(ServerAheadPolicy.SKIP)
                        .committed(finished("p"))
                        .listing(
                                listed("p", TERMINATED), listed("m", TERMINATED), listed("c", OPEN))
                        .adoptedBefore("m", "m-0")
                        .serverCheckpoint("c", "c-0")
                        .readable("c")
                        .startsAt("m", ChannelPosition.finished())
                        .adopted("m", "c")
                        .skipped("m"),
                scenario("adopted earlier already finished, TERMINATED: nothing lost, no skip")
                        .committed(reading("a", "a-1"))
                        .listing(listed("a", OPEN), listed("x", TERMINATED))
                        .adoptedBefore("x", "finished")
                        .readable("a")
                        .startsAt("x", ChannelPosition.finished())
                        .adopted("x"),
                scenario("21 only on the server: adopted PENDING at the server checkpoint")
                        .committed(reading("a", "a-1"))
                        .listing(listed("a", OPEN), listed("b", OPEN))
                        .serverCheckpoint("b", "b-7")
                        .readable("a", "b")
                        .startsAt("b", ChannelPosition.at("b-7"))
                        .adopted("b"),
                scenario("21 only on the server with a finished checkpoint: tombstone")
                        .listing(listed("b", CLOSE))
                        .serverCheckpoint("b", "finished")
                        .startsAt("b", ChannelPosition.finished())
                        .adopted("b"),
                scenario("22 only in meta, FINISHED: tombstone kept, never read")
                        .committed(reading("a", "a-1"), finished("f"))
                        .listing(listed("a", OPEN))
                        .readable("a")
                        .startsAt("f", ChannelPosition.finished()),
                scenario("22 FINISHED in meta, stale listing says OPEN: not read")
                        .committed(finished("f"))
                        .listing(listed("f", OPEN))
                        .startsAt("f", ChannelPosition.finished()),
                scenario("23 vanished under on.vanished.channel=warn: kept, held, reported")
                        .onVanished(VanishedChannelPolicy.WARN)
                        .committed(reading("a", "a-1"), reading("gone", "g-4"))
                        .listing(listed("a", OPEN))
                        .readable("a")
                        .held("gone", NOT_LISTED)
                        .startsAt("gone", ChannelPosition.at("g-4", 2))
                        .vanished("gone"),
                scenario("27 empty meta: all adopted, roots readable, children held")
                        .listing(listed("r1", OPEN), listed("r2", OPEN), listed("c", WAIT))
                        .serverCheckpoint("r1", "r1-0")
                        .serverCheckpoint("r2", "r2-0")
                        .serverCheckpoint("c", "c-0")
                        .readable("r1", "r2")
                        .held("c", WAITING_ON_SERVER)
                        .adopted("r1", "r2", "c"),
                scenario("27 WAIT child without a server checkpoint yet: held, adopted later")
                        .listing(listed("r", OPEN), listed("c", WAIT))
                        .serverCheckpoint("r", "r-0")
                        .readable("r")
                        .held("c", WAITING_ON_SERVER)
                        .adopted("r"),
                scenario("28 BaseAndStream: stream held while a base channel is unfinished")
                        .tunnel(TunnelType.BASE_AND_STREAM)
                        .committed(finished("base1"), reading("base2", "b2-1"), pending("s", "s0"))
                        .listing(listed("base1", TERMINATED), listed("base2", OPEN))
                        .listing(listed("s", OPEN))
                        .readable("base2")
                        .held("s", BASE_DATA_UNFINISHED),
                scenario("28 BaseAndStream: unadopted WAIT base channel also holds streams")
                        .tunnel(TunnelType.BASE_AND_STREAM)
                        .listing(listed("base1", WAIT), listed("s", OPEN))
                        .serverCheckpoint("s", "s-0")
                        .held("base1", WAITING_ON_SERVER)
                        .held("s", BASE_DATA_UNFINISHED)
                        .adopted("s"),
                scenario("28 BaseAndStream: base FINISHED in meta (push pending): streams read")
                        .tunnel(TunnelType.BASE_AND_STREAM)
                        .committed(finished("base1"), pending("s", "s-0"))
                        .listing(listed("base1", OPEN), listed("s", OPEN))
                        .readable("s"),
                scenario("28 Stream tunnel: no stage gate")
                        .committed(reading("base1", "b-1"), pending("s", "s-0"))
                        .listing(listed("base1", OPEN), listed("s", OPEN))
                        .readable("base1", "s"),
                scenario("31 CLOSING/CLOSE churn: held, positions unchanged")
                        .committed(reading("a", "a-3"), reading("b", "b-4"))
                        .listing(listed("a", CLOSING), listed("b", CLOSE))
                        .held("a", NOT_OPEN)
                        .held("b", NOT_OPEN)
                        .startsAt("a", ChannelPosition.at("a-3", 2))
                        .startsAt("b", ChannelPosition.at("b-4", 2)),
                scenario("channel the server assigned to another client: held")
                        .committed(reading("a", "a-3"), reading("b", "b-1"))
                        .listing(listedFor("a", "client-2"), listedFor("b", Channels.CLIENT))
                        .readable("b")
                        .held("a", ASSIGNED_TO_OTHER_CLIENT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void mergesAsTheTableSays(MergeScenario s) {
        MergeResult result = s.run();

        assertThat(result.readable())
                .as("readable")
                .containsExactlyInAnyOrderElementsOf(s.readable);
        assertThat(result.held()).as("held").isEqualTo(s.held);
        assertThat(result.adopted()).as("adopted").containsExactlyInAnyOrderElementsOf(s.adopted);
        assertThat(result.vanished())
                .as("vanished")
                .containsExactlyInAnyOrderElementsOf(s.vanished);
        assertThat(result.serverAhead())
                .extracting(ServerAhead::channelId)
                .as("server ahead")
                .containsExactlyInAnyOrderElementsOf(s.ahead);
        assertThat(result.skipped())
                .extracting(UnreadableChannel::channelId)
                .as("skipped")
                .containsExactlyInAnyOrderElementsOf(s.skipped);
        assertThat(result.entries().values())
                .filteredOn(e -> s.skipped.contains(e.channelId()))
                .as("skipped channels are tombstones with nothing to push")
                .allSatisfy(e -> assertThat(e.adoptedAt().isFinished()).isTrue());
        s.positions.forEach(
                (id, pos) -> assertThat(result.entries().get(id).position()).as(id).isEqualTo(pos));
        assertSnapshotComplete(s, result);
    }

    /** Invariant 6: every committed entry and every adopted channel is in the merged entries. */
    private static void assertSnapshotComplete(MergeScenario s, MergeResult result) {
        s.committed.ifPresent(
                c -> assertThat(result.entries().keySet()).containsAll(c.channels().keySet()));
        assertThat(result.entries().keySet()).containsAll(s.adopted);
        assertThat(result.entries().values())
                .allSatisfy(e -> assertThat(e.batchRecords()).isZero());
    }

    @Test
    void aChannelTheStateHoldsUnfinishedButTheServerFinishedFailsTheMergeByDefault() {
        MergeScenario s =
                scenario("20 server TERMINATED, meta READING, fail")
                        .committed(reading("a", "a-3"), reading("b", "b-1"))
                        .listing(listed("a", TERMINATED), listed("b", OPEN));

        assertThatThrownBy(s::run)
                .isInstanceOf(ServerAheadException.class)
                .hasMessageContaining("restored from state older than the tunnel server's")
                .hasMessageContaining("a: every change after position a-3+2")
                .hasMessageContaining("Nothing was delivered")
                .hasMessageContaining("on.server.ahead=skip")
                .satisfies(
                        e ->
                                assertThat(((ServerAheadException) e).channels())
                                        .extracting(UnreadableChannel::channelId)
                                        .containsExactly("a"));
    }

    @Test
    void aChannelAdoptedAfterTheStateAndFinishedSinceFailsTheMergeByDefault() {
        MergeScenario s =
                scenario("merged channel the state never saw")
                        .committed(finished("p"))
                        .listing(
                                listed("p", TERMINATED), listed("m", TERMINATED), listed("c", OPEN))
                        .adoptedBefore("m", "m-0")
                        .serverCheckpoint("c", "c-0");

        assertThatThrownBy(s::run)
                .isInstanceOf(ServerAheadException.class)
                .hasMessageContaining("m: every change after position m-0+0")
                .hasMessageContaining("adopted after the state was taken");
    }

    @Test
    void theEnginesWordsNameTheStateItWasRestoredFrom() {
        ServerAheadException e =
                new ServerAheadException(
                                "tid",
                                List.of(
                                        new UnreadableChannel(
                                                "p-1", Optional.of(ChannelPosition.at("t")), true)))
                        .withContext(Engine.FLINK, "tunnel 'cdc' of table 'orders'", "savepoint 7");

        assertThat(e.getMessage())
                .contains("The job on tunnel 'cdc' of table 'orders' was restored from state")
                .contains("(savepoint 7)")
                .contains("restore from the newest checkpoint or savepoint")
                .contains("start the job without its checkpoint or savepoint");
    }

    @Test
    void adoptedChannelRemembersWhereItWasAdopted() {
        MergeResult result =
                scenario("adopt").listing(listed("c", WAIT)).serverCheckpoint("c", "c-0").run();

        ChannelCheckpoint c = result.entries().get("c");
        assertThat(c.lifecycle()).isEqualTo(ChannelLifecycle.PENDING);
        assertThat(c.adoptedAt()).isEqualTo(ChannelPosition.at("c-0"));
    }

    @Test
    void vanishedChannelFailsByDefaultNamingChannelTunnelAndOption() {
        MergeScenario s =
                scenario("23 vanished")
                        .committed(reading("a", "a-1"), reading("gone", "g-1"), finished("f"))
                        .listing(listed("a", OPEN));

        assertThatThrownBy(s::run)
                .isInstanceOf(VanishedChannelException.class)
                .hasMessageContaining("Tunnel tunnel-1 no longer lists channel(s) [gone]")
                .hasMessageContaining("unfinished in the committed meta snapshot")
                .hasMessageContaining("set on.vanished.channel=warn")
                .satisfies(
                        e ->
                                assertThat(((VanishedChannelException) e).channelIds())
                                        .containsExactly("gone"));
    }

    @Test
    void finishedChannelThatVanishedIsNotAnError() {
        MergeResult result =
                scenario("22").committed(finished("f")).listing(listed("a", WAIT)).run();

        assertThat(result.entries()).containsKey("f");
        assertThat(result.vanished()).isEmpty();
    }

    @Test
    void warnPolicyExplainsTheVanishedChannelInTheWarnings() {
        MergeResult result =
                scenario("23 warn")
                        .onVanished(VanishedChannelPolicy.WARN)
                        .committed(reading("gone", "g-1"))
                        .run();

        assertThat(result.warnings())
                .singleElement()
                .asString()
                .contains("[gone]", "on.vanished.channel=warn");
    }

    @Test
    void snapshotOfAnotherTunnelIdIsRefusedWithTheFix() {
        BatchSnapshot foreign =
                new BatchSnapshot(
                        "old-tunnel", BatchToken.random(), Map.of("a", reading("a", "a-1")));
        CheckpointMerger merger =
                new CheckpointMerger(
                        "tunnel-1",
                        TunnelType.STREAM,
                        Optional.empty(),
                        VanishedChannelPolicy.FAIL);

        assertThatThrownBy(
                        () ->
                                merger.merge(
                                        Optional.of(foreign),
                                        List.of(listed("a", OPEN)),
                                        ServerCheckpoints.of(Map.of())))
                .isInstanceOf(ForeignSnapshotException.class)
                .hasMessageContaining("belongs to tunnel id old-tunnel")
                .hasMessageContaining("tunnel being read has id tunnel-1")
                .hasMessageContaining("use a new meta table");
    }

    @Test
    void openChannelWithoutServerCheckpointIsAnError() {
        MergeScenario s = scenario("no checkpoint").listing(listed("c", OPEN));

        assertThatThrownBy(s::run)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lists channel c as OPEN but returned no checkpoint");
    }

    @Test
    void duplicateListingEntryIsRejected() {
        MergeScenario s = scenario("dup").listing(listed("c", OPEN), listed("c", WAIT));

        assertThatThrownBy(s::run).hasMessageContaining("names channel c twice");
    }

    @Test
    void mergeIsDeterministicForRepeatedPlanning() {
        MergeScenario s =
                scenario("repeat")
                        .committed(reading("a", "a-1"))
                        .listing(listed("a", OPEN), listed("b", WAIT))
                        .serverCheckpoint("b", "b-0");

        assertThat(s.run()).isEqualTo(s.run());
    }

    @Test
    void bothTunnelTypesThatEndAreCompleteOnceEveryChannelFinished() {
        for (TunnelType type : List.of(TunnelType.BASE_DATA, TunnelType.STREAM)) {
            MergeResult done =
                    scenario("29/30 done")
                            .tunnel(type)
                            .committed(finished("base1"), finished("x"))
                            .listing(listed("base1", TERMINATED), listed("x", TERMINATED))
                            .run();
            assertThat(done.everyChannelFinished()).as(type.name()).isTrue();
        }
    }

    @Test
    void notCompleteWhileTheServerStillHoldsAChild() {
        MergeResult result =
                scenario("30 child waiting")
                        .committed(finished("x"))
                        .listing(listed("x", TERMINATED), listed("y", WAIT))
                        .run();

        assertThat(result.everyChannelFinished()).isFalse();
    }

    @Test
    void mergedEntriesSeedTheNextSnapshot() {
        MergeResult result =
                scenario("seed").listing(listed("a", OPEN)).serverCheckpoint("a", "a-0").run();
        BatchToken next = BatchToken.random();

        BatchSnapshot seed = result.snapshotFor(next);

        assertThat(seed.tunnelId()).isEqualTo(Channels.TUNNEL);
        assertThat(seed.token()).isEqualTo(next);
        assertThat(seed.channels()).isEqualTo(result.entries());
        assertThat(result.readableEntries())
                .extracting(ChannelCheckpoint::channelId)
                .containsExactly("a");
    }

    @Test
    void serverChannelWithoutEntryIsListedOnlyOnce() {
        ServerChannel c = listed("c", WAIT);
        MergeResult result = scenario("once").listing(c).run();

        assertThat(result.held()).containsOnlyKeys("c");
    }
}
