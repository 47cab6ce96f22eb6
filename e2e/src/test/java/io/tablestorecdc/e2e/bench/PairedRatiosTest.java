package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PairedRatiosTest {

    @Test
    void eachRunIsComparedWithRawsRunOfTheSameRound() {
        // Round 2 ran on a slow machine: both sides slowed, the ratio did not.
        List<ConsumerRun> raw = List.of(run("raw", 1_000, 1_000), run("raw", 4_000, 4_000));
        List<ConsumerRun> spark = List.of(run("spark", 1_250, 1_000), run("spark", 5_000, 4_000));

        PairedRatios paired = PairedRatios.of(spark, raw);

        assertThat(paired.whole()[0]).isCloseTo(0.8, within(1e-9));
        assertThat(paired.whole()[1]).isCloseTo(0.8, within(1e-9));
        assertThat(paired.steady()[0]).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void describesTheSpreadAndTheMedian() {
        assertThat(PairedRatios.describe(new double[] {0.9, 0.62, 0.79}))
                .isEqualTo("0.62-0.90, median 0.79");
        assertThat(PairedRatios.describe(new double[0])).isEqualTo("-");
    }

    /**
     * A drain of 100000 records taking {@code millis} in all, {@code steadyMillis} without start.
     */
    private static ConsumerRun run(String consumer, long millis, long steadyMillis) {
        Measurement m =
                new Measurement(consumer, 100_000, millis * 1_000_000, steadyMillis * 1_000_000);
        return new ConsumerRun(m, Optional.empty(), new CpuUse(0, 0));
    }
}
