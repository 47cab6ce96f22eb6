package io.tablestorecdc.e2e.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the emulator server's CPU time is read: the server threads of this JVM (embedded), or the
 * whole child process (process mode). Each reading is CPU nanoseconds by clock (a thread id, or the
 * child's pid); {@link CpuClock} subtracts two readings clock by clock.
 */
interface ServerCpu {

    /** CPU nanoseconds of each server clock now, by a stable id. */
    Map<Long, Long> nanosByClock();

    /**
     * Whether the server's CPU is part of this JVM's process CPU time (embedded) or comes on top of
     * it (a child process).
     */
    boolean inBenchJvm();

    /** The emulator's HTTP threads in this JVM. */
    static ServerCpu threadsOfThisJvm() {
        return ServerThreads.INSTANCE;
    }

    /** Every thread of the child process, GC and JIT included. */
    static ServerCpu childProcess(ProcessHandle child) {
        return new ServerCpu() {
            @Override
            public Map<Long, Long> nanosByClock() {
                long nanos =
                        child.info()
                                .totalCpuDuration()
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "Cannot read the CPU time of emulator"
                                                                + " process "
                                                                + child.pid()
                                                                + "; run with emulator=embedded"
                                                                + " on this OS"))
                                .toNanos();
                return Map.of(child.pid(), nanos);
            }

            @Override
            public boolean inBenchJvm() {
                return false;
            }
        };
    }

    /**
     * The emulator server's threads of this JVM, told apart by name ({@link
     * CpuClock#isServerThread}).
     */
    final class ServerThreads implements ServerCpu {

        private static final ServerThreads INSTANCE = new ServerThreads();
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        private ServerThreads() {}

        @Override
        public Map<Long, Long> nanosByClock() {
            if (!THREADS.isThreadCpuTimeSupported()) {
                throw new IllegalStateException(
                        "This JVM cannot measure thread CPU time; run the benchmark on a HotSpot"
                                + " JVM (OpenJDK 17) on Linux, macOS or Windows");
            }
            THREADS.setThreadCpuTimeEnabled(true);
            Map<Long, Long> cpu = new HashMap<>();
            for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
                // null: the thread ended between the two calls.
                if (info != null && CpuClock.isServerThread(info.getThreadName())) {
                    long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                    if (nanos >= 0) {
                        cpu.put(info.getThreadId(), nanos);
                    }
                }
            }
            return cpu;
        }

        @Override
        public boolean inBenchJvm() {
            return true;
        }
    }
}
