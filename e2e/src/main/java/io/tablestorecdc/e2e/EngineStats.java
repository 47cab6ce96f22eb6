package io.tablestorecdc.e2e;

import io.tablestorecdc.e2e.orders.OrderChange;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** What one engine's replica has applied so far; updated by the engine, read by the console. */
public final class EngineStats {

    private final long baseTotal;
    private final LongSupplier nanoClock;
    private final AtomicLong startNanos = new AtomicLong();
    private final AtomicLong changes = new AtomicLong();
    private final AtomicLong baseRows = new AtomicLong();
    private final AtomicLong baseDoneNanos = new AtomicLong();
    private final AtomicLong units = new AtomicLong();
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();
    private final AtomicLong maxLagMillis = new AtomicLong(-1);

    /** Stats of a replica of a table whose base data holds {@code baseTotal} rows. */
    public EngineStats(long baseTotal) {
        this(baseTotal, System::nanoTime);
    }

    EngineStats(long baseTotal, LongSupplier nanoClock) {
        this.baseTotal = baseTotal;
        this.nanoClock = nanoClock;
    }

    /** Marks the moment the engine was asked to start. */
    public void recordStart() {
        startNanos.set(nanoClock.getAsLong());
    }

    /** Counts {@code applied} changes handed to the replica at once. */
    public void recordApplied(List<OrderChange> applied) {
        recordApplied(applied.size(), applied.stream().filter(OrderChange::isBaseData).count());
    }

    /** Counts {@code rows} changes written at once, {@code base} of them base data. */
    public void recordApplied(long rows, long base) {
        if (rows == 0) {
            return;
        }
        long now = nanoClock.getAsLong();
        firstNanos.compareAndSet(0, now);
        lastNanos.set(now);
        changes.addAndGet(rows);
        if (base > 0 && baseRows.addAndGet(base) >= baseTotal) {
            baseDoneNanos.compareAndSet(0, now);
        }
    }

    /** Counts one Spark batch or Flink checkpoint. */
    public long recordUnit() {
        return units.incrementAndGet();
    }

    /** Keeps the largest lag seen. */
    public void recordLag(long millis) {
        maxLagMillis.accumulateAndGet(millis, Math::max);
    }

    public long changes() {
        return changes.get();
    }

    public long baseRows() {
        return baseRows.get();
    }

    public long baseTotal() {
        return baseTotal;
    }

    public long units() {
        return units.get();
    }

    /** The largest lag reported, if any. */
    public Optional<Long> maxLagMillis() {
        long lag = maxLagMillis.get();
        return lag < 0 ? Optional.empty() : Optional.of(lag);
    }

    /** How long after its start the engine had applied all the base data. */
    public Optional<Double> baseCatchUpSeconds() {
        long done = baseDoneNanos.get();
        return done == 0 || startNanos.get() == 0
                ? Optional.empty()
                : Optional.of((done - startNanos.get()) / 1e9);
    }

    /** Changes per second between the first and the last apply. */
    public double throughput() {
        long span = lastNanos.get() - firstNanos.get();
        return span <= 0 ? changes.get() : changes.get() / (span / 1e9);
    }
}
