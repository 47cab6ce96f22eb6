package io.tablestorecdc.e2e.bench;

/**
 * The CPU time one drain cost, consumer and server together, and how much of it the emulator's
 * server took; the rest is the consumer's. Embedded: the benchmark JVM's time, of which the server
 * is its HTTP threads (GC and JIT threads cannot be told apart by whom they work for and count to
 * the consumer). Process mode: the benchmark JVM's time plus the emulator child's, of which the
 * server is the whole child (see {@link CpuClock#stop}).
 */
record CpuUse(long processNanos, long serverNanos) {

    /** Never negative: the process clock's coarse ticks can read a little below the threads'. */
    long consumerNanos() {
        return Math.max(0, processNanos - serverNanos);
    }

    double serverMicrosPerRecord(long records) {
        return serverNanos / 1e3 / records;
    }

    double consumerMicrosPerRecord(long records) {
        return consumerNanos() / 1e3 / records;
    }
}
