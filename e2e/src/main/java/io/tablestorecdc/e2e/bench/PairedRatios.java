package io.tablestorecdc.e2e.bench;

import java.util.List;
import java.util.Locale;

/**
 * A consumer's rate over the raw loop's, run by run: each run of a consumer is paired with the raw
 * loop's run of the same interleaved round, so a round slowed by the shared machine slows both
 * sides. The spread of these ratios is what a single figure hides.
 *
 * @param whole each round's whole-run rate over raw's
 * @param steady each round's start-up-free rate over raw's (raw has no start-up)
 */
record PairedRatios(double[] whole, double[] steady) {

    /** The ratios of {@code runs} to {@code raw}, round by round (both lists in round order). */
    static PairedRatios of(List<ConsumerRun> runs, List<ConsumerRun> raw) {
        int rounds = Math.min(runs.size(), raw.size());
        double[] whole = new double[rounds];
        double[] steady = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            Measurement m = runs.get(i).measurement();
            double rawRate = raw.get(i).measurement().recordsPerSecond();
            whole[i] = m.recordsPerSecond() / rawRate;
            steady[i] = m.steadyRecordsPerSecond() / rawRate;
        }
        return new PairedRatios(whole, steady);
    }

    /** {@code min-max, median m} of the given ratios. */
    static String describe(double[] ratios) {
        if (ratios.length == 0) {
            return "-";
        }
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (double r : ratios) {
            min = Math.min(min, r);
            max = Math.max(max, r);
        }
        return String.format(
                Locale.ROOT, "%.2f-%.2f, median %.2f", min, max, ConsumerFigures.median(ratios));
    }
}
