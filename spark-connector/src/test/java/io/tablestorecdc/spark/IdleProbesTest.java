package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdleProbesTest {

    private final AtomicLong nanos = new AtomicLong(-5_000_000_000L);
    private final IdleProbes probes = new IdleProbes(nanos::get);

    @Test
    void aChannelNeverProbedIsDue() {
        assertThat(probes.due("a")).isTrue();
    }

    @Test
    void emptyProbesDoubleTheWaitUpToTheMaximum() {
        long[] expectedWaitsMillis = {50, 100, 200, 400, 800, 1000, 1000};
        for (long waitMillis : expectedWaitsMillis) {
            probes.record("a", true);
            advance(waitMillis - 1);
            assertThat(probes.due("a")).as("before %d ms", waitMillis).isFalse();
            advance(1);
            assertThat(probes.due("a")).as("after %d ms", waitMillis).isTrue();
        }
    }

    @Test
    void dataResetsTheBackoff() {
        probes.record("a", true);
        probes.record("a", true);
        advance(100);
        probes.record("a", false);

        assertThat(probes.due("a")).isTrue();
        probes.record("a", true);
        advance(IdleProbes.FIRST_WAIT.toMillis());
        assertThat(probes.due("a")).isTrue();
    }

    @Test
    void channelsBackOffIndependently() {
        probes.record("a", true);

        assertThat(probes.due("a")).isFalse();
        assertThat(probes.due("b")).isTrue();
    }

    private void advance(long millis) {
        nanos.addAndGet(Duration.ofMillis(millis).toNanos());
    }
}
