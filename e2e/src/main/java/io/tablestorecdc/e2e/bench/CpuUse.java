package io.tablestorecdc.e2e.bench;

/**
 * The CPU time one drain cost the benchmark JVM, and how much of it the in-process emulator's
 * server threads took; the rest is the consumer's (its threads, the SDK client's I/O threads, and
 * GC and JIT threads, which cannot be told apart by whom they work for).
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
