package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.ReadMinRows;
import org.junit.jupiter.api.Test;

class MinRowsAdmissionTest {

    private static final ReadMinRows MIN_100_WITHIN_10S =
            (ReadMinRows) ReadLimit.minRows(100, Duration.ofSeconds(10).toMillis());

    private final AtomicLong nanos = new AtomicLong(-7_000_000_000L);
    private final MinRowsAdmission admission = new MinRowsAdmission(nanos::get, "t");

    @Test
    void theFirstPlanningReadsWhatItFindsAtOnceAsKafkasSourceDoes() {
        assertThat(admission.holds(MIN_100_WITHIN_10S, 1, false)).isFalse();
    }

    @Test
    void fewerRecordsThanTheMinimumWaitUntilEnoughArrive() {
        admission.nothingToRead(MIN_100_WITHIN_10S);
        advance(1000);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 99, false)).isTrue();
        advance(IdleProbes.FIRST_WAIT.toMillis());
        assertThat(admission.holds(MIN_100_WITHIN_10S, 100, false)).isFalse();
        assertThat(admission.lastBatchHeld()).isEqualTo(IdleProbes.FIRST_WAIT);
    }

    @Test
    void theDelayBoundsTheWaitFromThePreviousBatch() {
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false)).isFalse(); // batch at 0 s
        advance(9_999);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false)).isTrue();
        advance(1);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false)).isFalse(); // batch at 10 s
        advance(1);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false))
                .as("the clock restarted at the batch")
                .isTrue();
    }

    @Test
    void anIdleStreamRestartsTheClockOnceTheDelayHasPassed() {
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false)).isFalse();
        advance(60_000);
        admission.nothingToRead(MIN_100_WITHIN_10S);
        advance(1);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 1, false))
                .as("a record after a long idle time waits for company, as in Kafka's source")
                .isTrue();
    }

    @Test
    void anIdlePlanningWithinTheDelayKeepsTheClock() {
        assertThat(admission.holds(MIN_100_WITHIN_10S, 5, false)).isFalse();
        advance(6_000);
        admission.nothingToRead(MIN_100_WITHIN_10S);
        advance(4_000);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 1, false)).isFalse();
    }

    @Test
    void aChannelEndOrAnAdoptionNeverWaits() {
        admission.nothingToRead(MIN_100_WITHIN_10S);
        advance(1);
        assertThat(admission.holds(MIN_100_WITHIN_10S, 1, true)).isFalse();
    }

    @Test
    void aHeldBatchIsCheckedAgainAfterAWaitThatDoublesUpToTheIdleProbeMaximum() {
        admission.nothingToRead(MIN_100_WITHIN_10S);
        assertThat(admission.checkDue()).isTrue();
        long[] expectedWaitsMillis = {50, 100, 200, 400, 800, 1000, 1000};
        for (long waitMillis : expectedWaitsMillis) {
            assertThat(admission.holds(MIN_100_WITHIN_10S, 1, false)).isTrue();
            advance(waitMillis - 1);
            assertThat(admission.checkDue()).as("before %d ms", waitMillis).isFalse();
            advance(1);
            assertThat(admission.checkDue()).as("after %d ms", waitMillis).isTrue();
        }
        assertThat(admission.holds(MIN_100_WITHIN_10S, 100, false)).isFalse();
        assertThat(admission.checkDue()).as("released").isTrue();
        assertThat(admission.lastBatchHeld()).isEqualTo(Duration.ofMillis(3550));
    }

    @Test
    void limitsAreFoundInsideACompositeUnlessItAlsoAllowsEverything() {
        ReadLimit both =
                ReadLimit.compositeLimit(
                        new ReadLimit[] {MIN_100_WITHIN_10S, ReadLimit.maxRows(500)});
        assertThat(MinRowsAdmission.minRows(both)).contains(MIN_100_WITHIN_10S);
        assertThat(MinRowsAdmission.maxRows(both).map(ReadMaxRows::maxRows)).contains(500L);

        ReadLimit withAll =
                ReadLimit.compositeLimit(
                        new ReadLimit[] {MIN_100_WITHIN_10S, ReadLimit.allAvailable()});
        assertThat(MinRowsAdmission.minRows(withAll)).isEmpty();
        assertThat(MinRowsAdmission.maxRows(withAll)).isEmpty();
        assertThat(MinRowsAdmission.minRows(ReadLimit.maxRows(3))).isEmpty();
    }

    @Test
    void triggerAvailableNowWaitsForNoMinimum() {
        assertThat(MinRowsAdmission.minimum(MIN_100_WITHIN_10S, false)).isPresent();
        assertThat(MinRowsAdmission.minimum(MIN_100_WITHIN_10S, true)).isEmpty();
    }

    private void advance(long millis) {
        nanos.addAndGet(Duration.ofMillis(millis).toNanos());
    }
}
