package io.tablestorecdc.e2e.bench;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a drain's records as they arrive and marks when the count first reaches 10 % and 90 % of
 * what is expected: the steady middle of the drain, without job start-up or the last channels'
 * tail. Safe for many counting threads.
 */
final class CountWindow {

    private final AtomicLong count = new AtomicLong();
    private final long low;
    private final long high;
    private final ServerCpu serverCpu;
    // Each mark is written by exactly one thread: the one whose add moved the count across it.
    private volatile Mark lowMark;
    private volatile Mark highMark;
    private volatile CpuClock lowCpu;
    private volatile CpuUse windowCpu;

    /** A window whose CPU split reads the server threads of an emulator in this JVM. */
    CountWindow(long expected) {
        this(expected, ServerCpu.threadsOfThisJvm());
    }

    CountWindow(long expected, ServerCpu serverCpu) {
        this.serverCpu = serverCpu;
        this.low = Math.max(1, (long) Math.ceil(expected * 0.1));
        this.high = Math.max(low + 1, (long) Math.ceil(expected * 0.9));
    }

    /**
     * The records between the two marks, the time between them, and the JVM's CPU between them
     * (sampled by the counting thread that crossed each mark).
     */
    record Span(long records, long nanos, CpuUse cpu) {
        double recordsPerSecond() {
            return records / (nanos / 1e9);
        }

        double serverMicrosPerRecord() {
            return cpu.serverMicrosPerRecord(records);
        }

        double consumerMicrosPerRecord() {
            return cpu.consumerMicrosPerRecord(records);
        }
    }

    private record Mark(long count, long nanos) {}

    /**
     * Adds {@code n} records; cheap enough to call per record (one atomic add, two comparisons),
     * since only the add that crosses a threshold reads the clocks. That one pays for sampling
     * every thread's CPU time (well under a millisecond, and no safepoint: no stacks are taken).
     */
    long add(long n) {
        long now = count.addAndGet(n);
        long before = now - n;
        if (before < low && now >= low) {
            lowCpu = CpuClock.start(serverCpu);
            lowMark = new Mark(now, System.nanoTime());
        }
        if (before < high && now >= high) {
            long nanos = System.nanoTime();
            CpuClock from = lowCpu;
            // Written before the mark, so whoever sees the mark sees the CPU too.
            windowCpu = from == null ? null : from.stop();
            highMark = new Mark(now, nanos);
        }
        return now;
    }

    long count() {
        return count.get();
    }

    /** The window, once the count has passed both marks (far enough apart to measure). */
    Optional<Span> span() {
        Mark last = highMark;
        Mark first = lowMark;
        CpuUse cpu = windowCpu;
        if (first == null
                || last == null
                || cpu == null
                || last.count() <= first.count()
                || last.nanos() <= first.nanos()) {
            return Optional.empty();
        }
        return Optional.of(
                new Span(last.count() - first.count(), last.nanos() - first.nanos(), cpu));
    }
}
