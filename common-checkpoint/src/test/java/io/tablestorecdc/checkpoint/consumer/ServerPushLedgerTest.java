package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The finish ledger both engines push through (invariant 3). */
class ServerPushLedgerTest {

    private final ServerPushLedger ledger = new ServerPushLedger();

    @Test
    void aFinishIsPlannedOnlyFromACommittedStateThatHoldsIt() {
        assertThat(ledger.plan(snapshot(reading("a", "t1"))).finishes()).isEmpty();

        ServerCommitPlan plan = ledger.plan(snapshot(finished("a")));

        assertThat(plan.finishes()).containsExactly("a");
    }

    @Test
    void aPlanInFlightIsNotPlannedAgainButAFailedOneIs() {
        ServerCommitPlan first = ledger.plan(snapshot(finished("a"), reading("b", "t2")));
        assertThat(ledger.plan(snapshot(finished("a"), reading("b", "t2"))).isEmpty()).isTrue();
        assertThat(ledger.finishesOutstanding()).isTrue();

        ledger.failed(first);

        ServerCommitPlan again = ledger.plan(snapshot(finished("a"), reading("b", "t2")));
        assertThat(again.finishes()).containsExactly("a");
        assertThat(again.positions()).containsKey("b");
    }

    @Test
    void anAcknowledgedFinishIsNeverPushedAgainAndCountsARound() {
        ServerCommitPlan plan = ledger.plan(snapshot(finished("a")));
        ledger.acknowledged(plan);

        assertThat(ledger.finishAcknowledged("a")).isTrue();
        assertThat(ledger.finishRounds()).isEqualTo(1);
        assertThat(ledger.finishesOutstanding()).isFalse();
        assertThat(ledger.plan(snapshot(finished("a"))).isEmpty()).isTrue();
    }

    @Test
    void positionsArePushedOnlyWhenTheyMoved() {
        ledger.acknowledged(ledger.plan(snapshot(reading("a", "t1"))));

        assertThat(ledger.plan(snapshot(reading("a", "t1"))).isEmpty()).isTrue();
        assertThat(ledger.plan(snapshot(reading("a", "t2"))).positions())
                .containsEntry("a", ChannelPosition.at("t2"));
        assertThat(ledger.finishRounds()).isZero();
    }

    @Test
    void aRestoredFinishTheServerDoesNotShowTerminatedIsOwedEvenIfAdoptedFinished() {
        // A restored state does not say where its tombstones were adopted: the listing decides.
        ledger.restoredFinishes(
                List.of("open", "terminated", "gone"),
                List.of(
                        listed("open", ServerChannelStatus.OPEN),
                        listed("terminated", ServerChannelStatus.TERMINATED)));

        ServerCommitPlan plan =
                ledger.plan(
                        snapshot(
                                adoptedFinished("open"),
                                adoptedFinished("terminated"),
                                adoptedFinished("gone")));

        assertThat(plan.finishes()).containsExactly("open");
        assertThat(ledger.finishAcknowledged("terminated")).isTrue();
        assertThat(ledger.finishAcknowledged("gone")).isTrue();
    }

    @Test
    void anOwedFinishWaitsForTheCommittedStateToHoldIt() {
        ledger.owe("x");

        assertThat(ledger.plan(snapshot(reading("a", "t1"))).finishes()).isEmpty();
        assertThat(ledger.finishesOutstanding()).isTrue();
        ServerCommitPlan plan = ledger.plan(snapshot(adoptedFinished("x")));
        assertThat(plan.finishes()).containsExactly("x");
        ledger.acknowledged(plan);
        assertThat(ledger.finishesOutstanding()).isFalse();
    }

    private static ChannelCheckpoint reading(String id, String token) {
        return ChannelCheckpoint.adopted(id, ChannelType.STREAM, ChannelPosition.at("t0"))
                .advancedTo(ChannelPosition.at(token), 1, SequenceInfo.NONE);
    }

    private static ChannelCheckpoint finished(String id) {
        return ChannelCheckpoint.adopted(id, ChannelType.STREAM, ChannelPosition.at("t0"))
                .advancedTo(ChannelPosition.finished(), 1, SequenceInfo.NONE);
    }

    private static ChannelCheckpoint adoptedFinished(String id) {
        return ChannelCheckpoint.adopted(id, ChannelType.STREAM, ChannelPosition.finished());
    }

    private static ServerChannel listed(String id, ServerChannelStatus status) {
        return new ServerChannel(id, ChannelType.STREAM, status, Optional.empty(), 0L);
    }

    private static BatchSnapshot snapshot(ChannelCheckpoint... entries) {
        Map<String, ChannelCheckpoint> map = new TreeMap<>();
        for (ChannelCheckpoint e : entries) {
            map.put(e.channelId(), e);
        }
        return new BatchSnapshot("tunnel", BatchToken.random(), map);
    }
}
