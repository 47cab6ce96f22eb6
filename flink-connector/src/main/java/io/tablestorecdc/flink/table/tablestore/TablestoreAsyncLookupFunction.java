package io.tablestorecdc.flink.table.tablestore;

import io.tablestorecdc.checkpoint.table.TableReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;

/**
 * Looks rows up off the task thread. Full keys of concurrent lookups wait in one queue and are read
 * together, up to 100 a BatchGetRow, by one reader thread; key-prefix lookups run one GetRange each
 * on a small pool.
 */
@Internal
public final class TablestoreAsyncLookupFunction extends AsyncLookupFunction {

    private static final long serialVersionUID = 1L;
    private static final int PREFIX_THREADS = 4;

    private final TableLookup lookup;
    private transient ConcurrentLinkedQueue<Pending> pending;
    private transient AtomicBoolean draining;
    private transient ExecutorService batcher;
    private transient ExecutorService prefixPool;

    private record Pending(RowData key, CompletableFuture<Collection<RowData>> result) {}

    TablestoreAsyncLookupFunction(TableLookup lookup) {
        this.lookup = lookup;
    }

    @Override
    public void open(FunctionContext context) {
        lookup.open(context.getMetricGroup());
        pending = new ConcurrentLinkedQueue<>();
        draining = new AtomicBoolean();
        batcher = Executors.newSingleThreadExecutor(r -> daemon(r, "tablestore-lookup-batch"));
        prefixPool =
                Executors.newFixedThreadPool(
                        PREFIX_THREADS, r -> daemon(r, "tablestore-lookup-range"));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
        if (!lookup.fullKey()) {
            return CompletableFuture.supplyAsync(() -> lookup.lookup(keyRow), prefixPool);
        }
        CompletableFuture<Collection<RowData>> result = new CompletableFuture<>();
        pending.add(new Pending(keyRow, result));
        if (draining.compareAndSet(false, true)) {
            batcher.execute(this::drain);
        }
        return result;
    }

    private void drain() {
        while (true) {
            List<Pending> batch = new ArrayList<>();
            Pending next;
            while (batch.size() < TableReader.MAX_KEYS_PER_BATCH
                    && (next = pending.poll()) != null) {
                batch.add(next);
            }
            if (batch.isEmpty()) {
                draining.set(false);
                // A key added after the poll but before the flag cleared must not wait forever.
                if (pending.isEmpty() || !draining.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            read(batch);
        }
    }

    private void read(List<Pending> batch) {
        try {
            List<RowData> keys = batch.stream().map(Pending::key).toList();
            List<Collection<RowData>> rows = lookup.lookupAll(keys);
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result().complete(rows.get(i));
            }
        } catch (RuntimeException e) {
            batch.forEach(p -> p.result().completeExceptionally(e));
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (batcher != null) {
            batcher.shutdownNow();
            prefixPool.shutdownNow();
            batcher.awaitTermination(10, TimeUnit.SECONDS);
            prefixPool.awaitTermination(10, TimeUnit.SECONDS);
        }
        lookup.close();
    }
}
