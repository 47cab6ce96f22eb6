package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CountWindowTest {

    private static final long BURN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    @Test
    void windowSpansTheRecordsBetweenTheTenthAndTheNinetiethPercentile() throws Exception {
        CountWindow window = new CountWindow(100_000);
        List<Thread> counters = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread counter = new Thread(() -> addOneByOne(window, 25_000));
            counter.start();
            counters.add(counter);
        }
        for (Thread counter : counters) {
            counter.join();
        }

        assertThat(window.count()).isEqualTo(100_000);
        CountWindow.Span span = window.span().orElseThrow();
        // Each mark is the exact count that crossed it when records arrive one by one.
        assertThat(span.records()).isEqualTo(80_000);
        assertThat(span.nanos()).isPositive();
        assertThat(span.cpu().processNanos()).isNotNegative();
    }

    @Test
    void noWindowBeforeTheNinetiethPercentile() {
        CountWindow window = new CountWindow(1_000);

        window.add(500);
        assertThat(window.span()).isEmpty();
        window.add(450);

        assertThat(window.span()).isPresent();
        assertThat(window.span().orElseThrow().records()).isEqualTo(450);
    }

    @Test
    void cpuOfServerThreadsIsToldFromTheRest() throws Exception {
        CpuClock clock = CpuClock.start();
        CountDownLatch burnt = new CountDownLatch(2);
        CountDownLatch measured = new CountDownLatch(1);
        // Started after the clock: counted from 0; kept alive until stop(), as a pool thread is.
        burner(CpuClock.SERVER_THREAD_PREFIX + "test", burnt, measured);
        burner("bench-consumer-test", burnt, measured);
        assertThat(burnt.await(60, TimeUnit.SECONDS)).as("both threads burnt their CPU").isTrue();

        CpuUse used = clock.stop();
        measured.countDown();

        // The process clock ticks in 10 ms: a difference of two samples is off by up to one tick.
        long tick = CpuClock.PROCESS_TICK_NANOS;
        assertThat(used.serverNanos()).isGreaterThanOrEqualTo(BURN_NANOS);
        assertThat(used.serverNanos()).isLessThanOrEqualTo(used.processNanos() + tick);
        assertThat(used.consumerNanos()).isGreaterThanOrEqualTo(BURN_NANOS - tick);
        assertThat(used.serverMicrosPerRecord(1000))
                .isCloseTo(used.serverNanos() / 1e6, within(1e-6));
    }

    @Test
    void cpuOfAServerInAChildProcessIsAddedToThisJvmsAsTheServersShare() throws Exception {
        AtomicLong childNanos = new AtomicLong(5_000_000_000L);
        ServerCpu child =
                new ServerCpu() {
                    @Override
                    public Map<Long, Long> nanosByClock() {
                        return Map.of(4242L, childNanos.get());
                    }

                    @Override
                    public boolean inBenchJvm() {
                        return false;
                    }
                };
        CpuClock clock = CpuClock.start(child);
        CountDownLatch burnt = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        burner("bench-consumer-test", burnt, measured);
        assertThat(burnt.await(60, TimeUnit.SECONDS)).as("the thread burnt its CPU").isTrue();
        childNanos.addAndGet(300_000_000L);

        CpuUse used = clock.stop();
        measured.countDown();

        long tick = CpuClock.PROCESS_TICK_NANOS;
        assertThat(used.serverNanos()).isEqualTo(300_000_000L);
        // This JVM's own CPU is the consumer's; the child's comes on top of it.
        assertThat(used.consumerNanos()).isGreaterThanOrEqualTo(BURN_NANOS - tick);
        assertThat(used.processNanos()).isEqualTo(used.consumerNanos() + used.serverNanos());
    }

    @Test
    void serverThreadsAreTheEmulatorsWorkersAndEventLoops() {
        assertThat(CpuClock.isServerThread("tablestore-emulator-http-12")).isTrue();
        assertThat(CpuClock.isServerThread("tablestore-emulator-http-io-1-2")).isTrue();
        assertThat(CpuClock.isServerThread("I/O dispatcher 3")).isFalse();
        assertThat(CpuClock.isServerThread("tablestore-cdc-read-ahead")).isFalse();
    }

    private static void addOneByOne(CountWindow window, int records) {
        for (int i = 0; i < records; i++) {
            window.add(1);
        }
    }

    /** A thread that spins for BURN_NANOS of its own CPU time, then waits for {@code until}. */
    private static void burner(String name, CountDownLatch burnt, CountDownLatch until) {
        Thread t =
                new Thread(
                        () -> {
                            var threads = ManagementFactory.getThreadMXBean();
                            long start = threads.getCurrentThreadCpuTime();
                            while (threads.getCurrentThreadCpuTime() - start < BURN_NANOS) {
                                Thread.onSpinWait();
                            }
                            burnt.countDown();
                            awaitQuietly(until);
                        },
                        name);
        t.setDaemon(true);
        t.start();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
