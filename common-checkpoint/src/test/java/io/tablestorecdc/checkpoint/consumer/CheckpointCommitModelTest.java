package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The commit model of an engine that commits positions (Flink): finishes durable only with the
 * checkpoint that recorded them, committed positions that never move back past a finish.
 */
class CheckpointCommitModelTest {

    @Test
    void aFinishRecordedInSnapshotNIsDurableWhenNCompletesNotBefore() {
        PendingFinishes pending = new PendingFinishes();
        pending.recordedIn(1, List.of("a"));
        pending.recordedIn(2, List.of("a", "b"));

        assertThat(pending.durableThrough(1)).containsExactly("a");
        assertThat(pending.durableThrough(1)).isEmpty();
        assertThat(pending.durableThrough(2)).containsExactly("a", "b");
    }

    @Test
    void aFinishInAnAbortedSnapshotIsDurableWithTheNextCompletedOne() {
        PendingFinishes pending = new PendingFinishes();
        pending.recordedIn(1, List.of("a")); // checkpoint 1 aborted: never completes
        pending.recordedIn(2, List.of("a"));

        assertThat(pending.durableThrough(2)).containsExactly("a");
    }

    @Test
    void aCommittedFinishIsNeverMovedBack() {
        CommittedPositions progress = new CommittedPositions();
        progress.adopt("a", ChannelType.STREAM, ChannelPosition.at("t0"));
        progress.commit("a", ChannelPosition.finished());
        progress.commit("a", ChannelPosition.at("t1", 3)); // an older report arriving late

        assertThat(progress.positions()).containsEntry("a", ChannelPosition.finished());
    }

    @Test
    void aFinishIsCommittedEvenWithoutAnEarlierPosition() {
        CommittedPositions progress = new CommittedPositions();
        progress.adopt("a", ChannelType.STREAM, ChannelPosition.at("t0"));
        progress.commit("a", ChannelPosition.finished());

        var entry = progress.snapshot("tunnel", BatchToken.random()).channels().get("a");
        assertThat(entry.lifecycle()).isEqualTo(ChannelLifecycle.FINISHED);
        assertThat(entry.adoptedAt()).isEqualTo(ChannelPosition.at("t0"));
    }
}
