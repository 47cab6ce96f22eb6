package io.tablestorecdc.e2e.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * Samples the JVM's process CPU time and the summed CPU time of the emulator's server threads at
 * the start of a drain and again at its end, so that a consumer's CPU can be told from the server's
 * while both share the same cores and the same process.
 *
 * <p>The two clocks differ in resolution: a thread's CPU time is exact to the nanosecond, but the
 * JDK reads the process's CPU time through {@code times()} on Linux, in whole clock ticks (10 ms).
 * A difference of two process samples is therefore off by up to {@link #PROCESS_TICK_NANOS} either
 * way; over a drain of seconds that is noise, over a few milliseconds it is not.
 */
final class CpuClock {

    /** The emulator's HTTP worker threads (EmulatorServer's cached pool). */
    static final String WORKER_PREFIX = "tablestore-emulator-http-";

    /**
     * The JDK HttpServer's one selector thread, which accepts and hands exchanges to workers. (Its
     * idle-connection timer, "idle-timeout-task", wakes rarely and is left out.)
     */
    static final String DISPATCHER = "HTTP-Dispatcher";

    /** The resolution of the process CPU clock on Linux (one clock tick, 1/100 s). */
    static final long PROCESS_TICK_NANOS = 10_000_000L;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final long processStart;
    private final Map<Long, Long> serverStart;

    private CpuClock(long processStart, Map<Long, Long> serverStart) {
        this.processStart = processStart;
        this.serverStart = serverStart;
    }

    static CpuClock start() {
        if (!THREADS.isThreadCpuTimeSupported() || OS.getProcessCpuTime() < 0) {
            throw new IllegalStateException(
                    "This JVM cannot measure thread or process CPU time; run the benchmark on a"
                            + " HotSpot JVM (OpenJDK 17) on Linux, macOS or Windows");
        }
        THREADS.setThreadCpuTimeEnabled(true);
        return new CpuClock(OS.getProcessCpuTime(), serverThreadCpu());
    }

    /**
     * The CPU used since {@link #start}. A server thread that starts during the drain counts from
     * 0. One that ends during it loses its CPU to the consumer's side (the thread's time is gone
     * from ThreadMXBean but stays in the process time); the cached pool keeps idle threads 60 s, so
     * during a drain of seconds that is rare.
     */
    CpuUse stop() {
        long process = OS.getProcessCpuTime() - processStart;
        long server = 0;
        for (Map.Entry<Long, Long> now : serverThreadCpu().entrySet()) {
            server += now.getValue() - serverStart.getOrDefault(now.getKey(), 0L);
        }
        return new CpuUse(process, server);
    }

    static boolean isServerThread(String name) {
        return name.startsWith(WORKER_PREFIX) || name.equals(DISPATCHER);
    }

    /** CPU nanoseconds of each live server thread, by thread id. */
    private static Map<Long, Long> serverThreadCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            // null: the thread ended between the two calls.
            if (info != null && isServerThread(info.getThreadName())) {
                long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    cpu.put(info.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }
}
