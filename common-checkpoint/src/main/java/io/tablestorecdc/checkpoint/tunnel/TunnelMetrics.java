package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of the tunnel adapter that the connectors expose as metrics (thread-safe).
 *
 * <p>One instance is shared by everything that uses one proxy; a connector reads the counters in
 * its metric gauges.
 */
@Internal
public final class TunnelMetrics {

    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong failedCalls = new AtomicLong();
    private final AtomicLong checkpointResyncs = new AtomicLong();

    /** Tunnel calls repeated after a transient error. */
    public long retries() {
        return retries.get();
    }

    /** Tunnel calls that failed for good (after any retries). */
    public long failedCalls() {
        return failedCalls.get();
    }

    /** Checkpoints re-sent after the server reported a sequence-number mismatch. */
    public long checkpointResyncs() {
        return checkpointResyncs.get();
    }

    void recordRetry() {
        retries.incrementAndGet();
    }

    void recordFailure() {
        failedCalls.incrementAndGet();
    }

    void recordResync() {
        checkpointResyncs.incrementAndGet();
    }

    @Override
    public String toString() {
        return "TunnelMetrics{retries="
                + retries
                + ", failedCalls="
                + failedCalls
                + ", checkpointResyncs="
                + checkpointResyncs
                + "}";
    }
}
