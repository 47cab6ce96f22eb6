package io.tablestorecdc.checkpoint.gate;

import static io.tablestorecdc.checkpoint.gate.ParentChildGateTest.finished;
import static io.tablestorecdc.checkpoint.gate.ParentChildGateTest.unfinished;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerCommitPlanTest {

    @Test
    void pushesReadPositionsAndFinishesOfTheCommittedSnapshot() {
        BatchSnapshot committed = snapshot(read("a", "a-5"), finished("p"), unfinished("pending"));

        ServerCommitPlan plan = ServerCommitPlan.forCommitted(committed, Map.of());

        assertThat(plan.token()).isEqualTo(committed.token());
        assertThat(plan.positions()).containsExactly(Map.entry("a", ChannelPosition.at("a-5")));
        assertThat(plan.finishes()).containsExactly("p");
    }

    @Test
    void eachFinishIsPlannedOnceAfterItWasAcknowledged() {
        BatchSnapshot first = snapshot(finished("p"), read("a", "a-5"));
        ServerCommitPlan plan = ServerCommitPlan.forCommitted(first, Map.of());
        Map<String, ChannelPosition> pushed = plan.pushedAfter(Map.of());

        BatchSnapshot next = snapshot(finished("p"), read("a", "a-9"));
        ServerCommitPlan again = ServerCommitPlan.forCommitted(next, pushed);

        assertThat(again.finishes()).isEmpty();
        assertThat(again.positions()).containsOnlyKeys("a");
        assertThat(ServerCommitPlan.forCommitted(next, again.pushedAfter(pushed)).isEmpty())
                .isTrue();
    }

    @Test
    void retryAfterAFailedPushPlansTheSamePushes() {
        BatchSnapshot committed = snapshot(finished("p"), read("a", "a-5"));

        ServerCommitPlan first = ServerCommitPlan.forCommitted(committed, Map.of());
        ServerCommitPlan retry = ServerCommitPlan.forCommitted(committed, Map.of());

        assertThat(retry).isEqualTo(first);
    }

    @Test
    void restartRepushesAFinishLostBetweenCommitAndPush() {
        // Case 10: the engine committed the parent's finish, the process died before the push.
        BatchSnapshot committed = snapshot(finished("p"));

        assertThat(ServerCommitPlan.forCommitted(committed, Map.of()).finishes())
                .containsExactly("p");
    }

    @Test
    void channelAdoptedAlreadyFinishedNeedsNoPush() {
        ChannelCheckpoint preHistory =
                ChannelCheckpoint.adopted("old", ChannelType.STREAM, ChannelPosition.finished());

        assertThat(ServerCommitPlan.forCommitted(snapshot(preHistory), Map.of()).isEmpty())
                .isTrue();
    }

    @Test
    void unchangedPositionIsNotPushedAgain() {
        BatchSnapshot committed = snapshot(read("a", "a-5"));
        Map<String, ChannelPosition> pushed = Map.of("a", ChannelPosition.at("a-5"));

        assertThat(ServerCommitPlan.forCommitted(committed, pushed).isEmpty()).isTrue();
    }

    private static ChannelCheckpoint read(String id, String token) {
        return unfinished(id).advancedTo(ChannelPosition.at(token), 3, SequenceInfo.NONE);
    }

    private static BatchSnapshot snapshot(ChannelCheckpoint... entries) {
        return new BatchSnapshot("t", BatchToken.random(), ParentChildGateTest.entries(entries));
    }
}
