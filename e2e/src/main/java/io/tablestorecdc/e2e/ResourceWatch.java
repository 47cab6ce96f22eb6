package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a long run must keep flat, sampled periodically: the demo JVM's heap after a full GC (the
 * engines' memory; the emulator's too when it is embedded) and the rows of the connectors' meta
 * table (bounded by its retention, whatever the run's length).
 */
final class ResourceWatch implements AutoCloseable {

    /** One sample: when (seconds since the watch started), heap after GC, meta-table rows. */
    record Sample(double atSeconds, long heapAfterGcBytes, long metaRows) {}

    private final SyncClient client;
    private final String metaTable;
    private final Console console;
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "resource-watch");
                        t.setDaemon(true);
                        return t;
                    });
    private final long startNanos = System.nanoTime();

    private ResourceWatch(SyncClient client, String metaTable, Console console) {
        this.client = client;
        this.metaTable = metaTable;
        this.console = console;
    }

    /** Samples every {@code interval}, printing each sample, until closed. */
    static ResourceWatch start(
            SyncClient client, String metaTable, Console console, Duration interval) {
        ResourceWatch watch = new ResourceWatch(client, metaTable, console);
        watch.timer.scheduleWithFixedDelay(
                watch::sampleQuietly,
                interval.toMillis(),
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return watch;
    }

    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    private void sampleQuietly() {
        try {
            Sample sample =
                    new Sample(
                            (System.nanoTime() - startNanos) / 1e9,
                            heapAfterFullGc(),
                            countRows(client, metaTable));
            samples.add(sample);
            console.say(
                    "watch",
                    String.format(
                            "%5.0f s | heap after GC %4d MB | meta table %s: %d rows",
                            sample.atSeconds(),
                            sample.heapAfterGcBytes() >> 20,
                            metaTable,
                            sample.metaRows()));
        } catch (RuntimeException e) {
            console.say("watch", "sample failed: " + e.getMessage());
        }
    }

    /** Heap in use right after a requested full collection: what the run really retains. */
    static long heapAfterFullGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Rows of {@code table} (0 while it does not exist yet), counted with GetRange. */
    static long countRows(SyncClient client, String table) {
        List<PrimaryKeySchema> schema;
        try {
            schema =
                    client.describeTable(new DescribeTableRequest(table))
                            .getTableMeta()
                            .getPrimaryKeyList();
        } catch (TableStoreException e) {
            if ("OTSObjectNotExist".equals(e.getErrorCode())) {
                return 0;
            }
            throw e;
        }
        long rows = 0;
        PrimaryKey start = bound(schema, PrimaryKeyValue.INF_MIN);
        while (start != null) {
            RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
            range.setInclusiveStartPrimaryKey(start);
            range.setExclusiveEndPrimaryKey(bound(schema, PrimaryKeyValue.INF_MAX));
            range.setMaxVersions(1);
            GetRangeResponse page = client.getRange(new GetRangeRequest(range));
            rows += page.getRows().size();
            start = page.getNextStartPrimaryKey();
        }
        return rows;
    }

    private static PrimaryKey bound(List<PrimaryKeySchema> schema, PrimaryKeyValue value) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        schema.forEach(column -> key.addPrimaryKeyColumn(column.getName(), value));
        return key.build();
    }

    /**
     * The largest value of the middle and of the last third of a run: flat when the later is not
     * much above the earlier (the first third is warm-up: caches, JIT, the base data).
     */
    record Trend(long middleMax, long lastMax) {
        static Trend of(List<Sample> samples, java.util.function.ToLongFunction<Sample> value) {
            int n = samples.size();
            return new Trend(
                    max(samples.subList(n / 3, Math.max(n / 3 + 1, 2 * n / 3)), value),
                    max(samples.subList(2 * n / 3, n), value));
        }

        private static long max(List<Sample> part, java.util.function.ToLongFunction<Sample> v) {
            return part.stream().mapToLong(v).max().orElse(0);
        }
    }

    static Trend heapTrend(List<Sample> samples) {
        return Trend.of(samples, Sample::heapAfterGcBytes);
    }

    static Trend metaRowsTrend(List<Sample> samples) {
        return Trend.of(samples, Sample::metaRows);
    }

    /** One line for the demo's summary. */
    static String summary(List<Sample> samples) {
        Trend heap = heapTrend(samples);
        Trend rows = metaRowsTrend(samples);
        return String.format(
                "%d samples; heap after GC at most %d MB in the middle third of the run, %d MB"
                        + " in the last; meta table at most %d rows in the middle third, %d in"
                        + " the last",
                samples.size(),
                heap.middleMax() >> 20,
                heap.lastMax() >> 20,
                rows.middleMax(),
                rows.lastMax());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
