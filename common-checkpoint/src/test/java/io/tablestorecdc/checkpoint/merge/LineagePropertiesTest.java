package io.tablestorecdc.checkpoint.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.merge.LineageSimulation.Append;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Batch;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.CommittedRead;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Merge;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Outcome;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Purge;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Split;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Step;
import io.tablestorecdc.checkpoint.merge.LineageSimulation.Tick;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Properties of merger + gate + commit plan over random split / merge / crash schedules against a
 * fake tunnel server that, as the service does, holds a child in {@code WAIT} until every parent is
 * reported finished: no record lost or read twice, no child read before its parents' ends.
 */
class LineagePropertiesTest {

    @Property(tries = 300)
    void nothingIsReadableBeforeEveryParentIsDurablyFinished(
            @ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.STREAM, steps);

        assertThat(sim.violations).isEmpty();
        assertThat(sim.server.violations()).isEmpty();
    }

    @Property(tries = 300)
    void everyChannelIsReadExactlyOnceFromItsStart(@ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.STREAM, steps);

        assertEveryChannelReadWhole(sim);
    }

    @Property(tries = 300)
    void committedPositionsNeverMoveBackward(@ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.STREAM, steps);

        for (int i = 1; i < sim.committedHistory.size(); i++) {
            BatchSnapshot before = sim.committedHistory.get(i - 1);
            BatchSnapshot after = sim.committedHistory.get(i);
            before.channels()
                    .forEach(
                            (id, old) ->
                                    assertThat(offset(after.channels().get(id).position()))
                                            .as(id)
                                            .isGreaterThanOrEqualTo(offset(old.position())));
        }
    }

    @Property(tries = 300)
    void tombstonesAreNeverReadAgain(@ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.STREAM, steps);

        assertThat(sim.violations).noneMatch(v -> v.startsWith("tombstone"));
        for (int i = 1; i < sim.committedHistory.size(); i++) {
            Map<String, ChannelCheckpoint> before = sim.committedHistory.get(i - 1).channels();
            Map<String, ChannelCheckpoint> after = sim.committedHistory.get(i).channels();
            before.values().stream()
                    .filter(ChannelCheckpoint::isFinished)
                    .forEach(t -> assertThat(after.get(t.channelId()).batchRecords()).isZero());
        }
    }

    @Property(tries = 300)
    void everyCommittedSnapshotIsComplete(@ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.STREAM, steps);

        for (int i = 1; i < sim.committedHistory.size(); i++) {
            assertThat(sim.committedHistory.get(i).channels().keySet())
                    .containsAll(sim.committedHistory.get(i - 1).channels().keySet());
        }
        BatchSnapshot last = sim.committed().orElseThrow();
        assertThat(last.channels().keySet()).containsAll(sim.server.channelIds());
    }

    @Property(tries = 200)
    void streamsOfABaseAndStreamTunnelWaitForEveryBaseChannel(
            @ForAll("schedules") List<Step> steps) {
        LineageSimulation sim = simulate(TunnelType.BASE_AND_STREAM, steps);

        assertThat(sim.violations).isEmpty();
        assertEveryChannelReadWhole(sim);
    }

    @Example
    void splitChildrenOpenOnlyAfterTheParentsFinishIsCommittedAndPushed() {
        LineageSimulation sim = new LineageSimulation(TunnelType.STREAM, 0, 1);
        sim.run(List.of(new Append(0, 2), new Split(0), new Batch(5, Outcome.CRASH_BEFORE_COMMIT)));
        assertThat(sim.server.channel("c0").status()).isEqualTo(ServerChannelStatus.WAIT);

        sim.apply(new Batch(5, Outcome.COMMIT_THEN_CRASH));
        assertThat(sim.committed().orElseThrow().channels().get("s0").isFinished()).isTrue();
        assertThat(sim.server.channel("c0").status()).isEqualTo(ServerChannelStatus.WAIT);

        // Case 10: after the restart the lost push is made again, and only then do children open.
        sim.run(List.of(new Batch(5, Outcome.COMMIT_AND_PUSH), new Append(0, 3)));
        assertThat(sim.server.channel("c0").status()).isEqualTo(ServerChannelStatus.OPEN);
        sim.apply(new Batch(5, Outcome.COMMIT_AND_PUSH));

        assertThat(sim.committedReads)
                .extracting(CommittedRead::channelId)
                .containsSubsequence("s0", "c0");
        assertThat(readsOf(sim, "s0")).isEqualTo(2);
        assertThat(readsOf(sim, "c0")).isEqualTo(3);
        assertThat(readsOf(sim, "c1")).isZero();
        assertThat(sim.violations).isEmpty();
    }

    @Example
    void mergedChildWaitsForBothParents() {
        LineageSimulation sim = new LineageSimulation(TunnelType.STREAM, 0, 2);
        sim.run(
                List.of(
                        new Append(0, 1),
                        new Append(1, 4),
                        new Merge(0),
                        new Batch(1, Outcome.COMMIT_AND_PUSH)));
        // s0 finished and was pushed; s1 still has records: the merged child stays WAIT.
        assertThat(sim.server.channel("s0").status()).isEqualTo(ServerChannelStatus.TERMINATED);
        assertThat(sim.server.channel("c0").status()).isEqualTo(ServerChannelStatus.WAIT);

        sim.drain();

        assertThat(sim.server.channel("c0").status()).isEqualTo(ServerChannelStatus.OPEN);
        assertThat(readsOf(sim, "s1")).isEqualTo(4);
        assertThat(sim.violations).isEmpty();
    }

    private static LineageSimulation simulate(TunnelType type, List<Step> steps) {
        int bases = type == TunnelType.BASE_AND_STREAM ? 2 : 0;
        LineageSimulation sim = new LineageSimulation(type, bases, 2);
        sim.run(steps);
        sim.drain();
        return sim;
    }

    private static void assertEveryChannelReadWhole(LineageSimulation sim) {
        for (String id : sim.server.channelIds()) {
            assertThat(readsOf(sim, id)).as(id).isEqualTo(sim.server.channel(id).records().size());
        }
    }

    /**
     * Number of records read for {@code channelId} across committed batches, after checking they
     * start at the channel's first record and neither overlap nor leave a gap.
     */
    private static int readsOf(LineageSimulation sim, String channelId) {
        List<CommittedRead> reads = new ArrayList<>();
        sim.committedReads.stream()
                .filter(r -> r.channelId().equals(channelId))
                .forEach(reads::add);
        int next = 0;
        for (CommittedRead r : reads) {
            assertThat(r.from())
                    .as(channelId + " read continues where the last one ended")
                    .isEqualTo(next);
            next = r.to();
        }
        return next;
    }

    private static int offset(ChannelPosition position) {
        return position.isFinished() ? Integer.MAX_VALUE : FakeTunnelService.offsetOf(position);
    }

    @Provide
    Arbitrary<List<Step>> schedules() {
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);
        Arbitrary<Step> append =
                Combinators.combine(pick, Arbitraries.integers().between(1, 4)).as(Append::new);
        Arbitrary<Step> split = pick.map(Split::new);
        Arbitrary<Step> merge = pick.map(Merge::new);
        Arbitrary<Step> batch =
                Combinators.combine(
                                Arbitraries.integers().between(1, 3), Arbitraries.of(Outcome.class))
                        .as(Batch::new);
        Arbitrary<Step> tick = Arbitraries.integers().between(1, 8).map(Tick::new);
        return Arbitraries.frequencyOf(
                        Tuple.of(4, append),
                        Tuple.of(1, split),
                        Tuple.of(1, merge),
                        Tuple.of(5, batch),
                        Tuple.of(1, tick),
                        Tuple.of(1, Arbitraries.<Step>just(new Purge())))
                .list()
                .ofMaxSize(40);
    }
}
