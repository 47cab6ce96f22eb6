package io.tablestorecdc.e2e.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * What is reported for one consumer over its runs: the run with the median whole-run rate (its
 * whole and steady rates), and the median of each of the other figures over the runs on its own.
 * The window figures are empty for a consumer that does not see its records arrive.
 *
 * @param median the run with the median whole-run rate
 * @param windowRecordsPerSecond median rate between the 10 % and the 90 % record
 * @param serverMicrosPerRecord median CPU of the emulator's server threads per record, whole drain
 * @param consumerMicrosPerRecord median CPU of the rest of the JVM per record, whole drain
 * @param windowServerMicrosPerRecord as {@code serverMicrosPerRecord}, within the window
 * @param windowConsumerMicrosPerRecord as {@code consumerMicrosPerRecord}, within the window
 */
record ConsumerFigures(
        Measurement median,
        OptionalDouble windowRecordsPerSecond,
        double serverMicrosPerRecord,
        double consumerMicrosPerRecord,
        OptionalDouble windowServerMicrosPerRecord,
        OptionalDouble windowConsumerMicrosPerRecord) {

    static ConsumerFigures of(List<ConsumerRun> runs) {
        List<ConsumerRun> byRate = new ArrayList<>(runs);
        byRate.sort(
                (a, b) ->
                        Double.compare(
                                a.measurement().recordsPerSecond(),
                                b.measurement().recordsPerSecond()));
        return new ConsumerFigures(
                byRate.get(byRate.size() / 2).measurement(),
                medianOfPresent(runs, ConsumerRun::windowRecordsPerSecond),
                median(runs.stream().mapToDouble(ConsumerRun::serverMicrosPerRecord).toArray()),
                median(runs.stream().mapToDouble(ConsumerRun::consumerMicrosPerRecord).toArray()),
                medianOfPresent(runs, ConsumerRun::windowServerMicrosPerRecord),
                medianOfPresent(runs, ConsumerRun::windowConsumerMicrosPerRecord));
    }

    /** Raw's consumer CPU per record over this one's (whole drain): below 1 costs more than raw. */
    double consumerCpuRatioTo(ConsumerFigures raw) {
        return raw.consumerMicrosPerRecord / consumerMicrosPerRecord;
    }

    /** As {@link #consumerCpuRatioTo}, within the windows, where both have one. */
    OptionalDouble windowConsumerCpuRatioTo(ConsumerFigures raw) {
        return quotient(raw.windowConsumerMicrosPerRecord, windowConsumerMicrosPerRecord);
    }

    /** This consumer's window rate over {@code other}'s, where both have a window. */
    OptionalDouble windowRatioTo(ConsumerFigures other) {
        return quotient(windowRecordsPerSecond, other.windowRecordsPerSecond);
    }

    private static OptionalDouble quotient(OptionalDouble a, OptionalDouble b) {
        return a.isPresent() && b.isPresent()
                ? OptionalDouble.of(a.getAsDouble() / b.getAsDouble())
                : OptionalDouble.empty();
    }

    private static OptionalDouble medianOfPresent(
            List<ConsumerRun> runs, Function<ConsumerRun, OptionalDouble> figure) {
        double[] present =
                runs.stream()
                        .map(figure)
                        .filter(OptionalDouble::isPresent)
                        .mapToDouble(OptionalDouble::getAsDouble)
                        .toArray();
        return present.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(median(present));
    }

    /** The middle value (the upper one of an even count, as for the whole-run rate). */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
