package io.tablestorecdc.e2e.bench;

/** One drain of a tunnel's backlog: how many records, in how long (and in its steady part). */
record Measurement(String consumer, long records, long nanos, long steadyNanos) {

    double recordsPerSecond() {
        return records / (nanos / 1e9);
    }

    /** Records per second excluding start-up (engine job start, first plan), where known. */
    double steadyRecordsPerSecond() {
        return records / (steadyNanos / 1e9);
    }
}
