package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a writer has done, readable from any thread (each engine publishes these as its metrics):
 * rows written, requests sent, rows sent again, deletes ignored, flushes and their time.
 */
@Internal
public final class WriteCounters {

    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong deletesIgnored = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong flushNanos = new AtomicLong();
    private final AtomicLong writeCapacityUnits = new AtomicLong();
    private volatile long lastFlushMillis;

    /** Rows the service acknowledged (coalesced changes count once). */
    public long rowsWritten() {
        return rowsWritten.get();
    }

    /** BatchWriteRow requests sent, retries included. */
    public long requests() {
        return requests.get();
    }

    /** Rows sent again after a passing failure. */
    public long retries() {
        return retries.get();
    }

    /** Row deletions dropped because deletes are ignored. */
    public long deletesIgnored() {
        return deletesIgnored.get();
    }

    /**
     * Write capacity units the service reported consumed, summed over every row of every request
     * (rows sent again and refused rows included): what the writes cost.
     */
    public long writeCapacityUnits() {
        return writeCapacityUnits.get();
    }

    /** Flushes that sent at least one row. */
    public long flushes() {
        return flushes.get();
    }

    /** Total time spent in flushes, in milliseconds. */
    public long flushTimeMillis() {
        return flushNanos.get() / 1_000_000;
    }

    /** How long the last flush took, in milliseconds. */
    public long lastFlushMillis() {
        return lastFlushMillis;
    }

    void written(int rows) {
        rowsWritten.addAndGet(rows);
    }

    void consumed(long units) {
        writeCapacityUnits.addAndGet(units);
    }

    void requestSent() {
        requests.incrementAndGet();
    }

    void retried(int rows) {
        retries.addAndGet(rows);
    }

    void deleteIgnored() {
        deletesIgnored.incrementAndGet();
    }

    void flushed(long nanos) {
        flushes.incrementAndGet();
        flushNanos.addAndGet(nanos);
        lastFlushMillis = nanos / 1_000_000;
    }

    @Override
    public String toString() {
        return "WriteCounters{rowsWritten="
                + rowsWritten
                + ", requests="
                + requests
                + ", retries="
                + retries
                + ", deletesIgnored="
                + deletesIgnored
                + ", flushes="
                + flushes
                + ", flushTimeMillis="
                + flushTimeMillis()
                + "}";
    }
}
