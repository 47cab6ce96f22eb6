package io.tablestorecdc.checkpoint.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import org.junit.jupiter.api.Test;

/** The position arithmetic both engines' readers share (invariant 1). */
class ResponsePositionsTest {

    private static final ChannelPosition NEXT = ChannelPosition.at("t2");

    @Test
    void recordsConsumedBeforeAreTheSkipWithinTheResponse() {
        assertThat(ResponsePositions.alreadyConsumed(ChannelPosition.at("t1", 3), 10)).isEqualTo(3);
        assertThat(ResponsePositions.alreadyConsumed(ChannelPosition.at("t1", 30), 10))
                .isEqualTo(10);
        assertThat(ResponsePositions.alreadyConsumed(ChannelPosition.at("t1"), 10)).isZero();
    }

    @Test
    void beforeARecordOfTheResponseIsTheTokenItWasReadFromAndItsIndex() {
        ChannelPosition from = ChannelPosition.at("t1", 3);

        assertThat(ResponsePositions.before(from, 3, 10, NEXT))
                .isEqualTo(ChannelPosition.at("t1", 3));
        assertThat(ResponsePositions.before(from, 9, 10, NEXT))
                .isEqualTo(ChannelPosition.at("t1", 9));
    }

    @Test
    void afterTheResponseIsTheNextTokenCarryingWhatTheSkipDidNotCover() {
        assertThat(ResponsePositions.before(ChannelPosition.at("t1", 3), 10, 10, NEXT))
                .isEqualTo(NEXT);
        // A batch ended 30 records after t1; this time the server sent only 10 from t1.
        assertThat(ResponsePositions.before(ChannelPosition.at("t1", 30), 10, 10, NEXT))
                .isEqualTo(ChannelPosition.at("t2", 20));
        assertThat(
                        ResponsePositions.before(
                                ChannelPosition.at("t1", 30), 10, 10, ChannelPosition.finished()))
                .isEqualTo(ChannelPosition.finished());
    }

    @Test
    void anIndexInsideTheConsumedPartIsRefused() {
        assertThatThrownBy(() -> ResponsePositions.before(ChannelPosition.at("t1", 3), 2, 10, NEXT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Record index 2");
    }
}
