package io.tablestorecdc.e2e.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * Samples the JVM's process CPU time and the emulator server's CPU time ({@link ServerCpu}) at the
 * start of a drain and again at its end, so that a consumer's CPU can be told from the server's,
 * whether both share one process (embedded) or the server runs in a child JVM (process).
 *
 * <p>The clocks differ in resolution: a thread's CPU time is exact to the nanosecond, but the JDK
 * reads a process's CPU time (this JVM's, or the child's) through {@code times()} or {@code /proc}
 * on Linux, in whole clock ticks (10 ms). A difference of two process samples is therefore off by
 * up to {@link #PROCESS_TICK_NANOS} either way; over a drain of seconds that is noise, over a few
 * milliseconds it is not.
 */
final class CpuClock {

    /**
     * The emulator's HTTP threads: its workers ({@code tablestore-emulator-http-N}) and its
     * transport's event loops ({@code tablestore-emulator-http-io-*}), which accept connections,
     * decode requests and write responses (their idle-connection timers run on them too).
     */
    static final String SERVER_THREAD_PREFIX = "tablestore-emulator-http-";

    /** The resolution of the process CPU clock on Linux (one clock tick, 1/100 s). */
    static final long PROCESS_TICK_NANOS = 10_000_000L;

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final ServerCpu server;
    private final long processStart;
    private final Map<Long, Long> serverStart;

    private CpuClock(ServerCpu server, long processStart, Map<Long, Long> serverStart) {
        this.server = server;
        this.processStart = processStart;
        this.serverStart = serverStart;
    }

    /** A clock for the emulator embedded in this JVM. */
    static CpuClock start() {
        return start(ServerCpu.threadsOfThisJvm());
    }

    static CpuClock start(ServerCpu server) {
        if (OS.getProcessCpuTime() < 0) {
            throw new IllegalStateException(
                    "This JVM cannot measure its process CPU time; run the benchmark on a"
                            + " HotSpot JVM (OpenJDK 17) on Linux, macOS or Windows");
        }
        return new CpuClock(server, OS.getProcessCpuTime(), server.nanosByClock());
    }

    /**
     * The CPU used since {@link #start}. A server clock that starts during the drain counts from 0.
     * A server thread that ends during it loses its CPU to the consumer's side (the thread's time
     * is gone from ThreadMXBean but stays in the process time); the cached pool keeps idle threads
     * 60 s, so during a drain of seconds that is rare.
     *
     * <p>{@link CpuUse#processNanos} means consumer + server in both modes: with the server in a
     * child JVM, this JVM's process time is the consumer's alone, so the child's time is added to
     * it. The figures are then comparable across modes, except that in process mode the server's
     * share also holds the child's GC, JIT and HTTP stack, which embedded mode counts to the
     * consumer (it cannot tell whom they work for).
     */
    CpuUse stop() {
        long process = OS.getProcessCpuTime() - processStart;
        long used = 0;
        for (Map.Entry<Long, Long> now : server.nanosByClock().entrySet()) {
            used += now.getValue() - serverStart.getOrDefault(now.getKey(), 0L);
        }
        return new CpuUse(server.inBenchJvm() ? process : process + used, used);
    }

    static boolean isServerThread(String name) {
        return name.startsWith(SERVER_THREAD_PREFIX);
    }
}
