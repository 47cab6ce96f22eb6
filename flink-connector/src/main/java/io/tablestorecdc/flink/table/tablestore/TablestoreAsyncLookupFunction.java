package io.tablestorecdc.flink.table.tablestore;

import io.tablestorecdc.checkpoint.table.TableReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;

/**
 * Looks rows up off the task thread. Full keys of concurrent lookups wait in one queue; a batching
 * thread forms BatchGetRow requests of up to 100 of them, which up to {@value #IN_FLIGHT} readers
 * send at once. A batch is sent when it is full, or when no key arrived for {@link #LINGER_NANOS}
 * (the task has no more lookups to start: Flink's async buffer is full, or the input paused): so
 * the keys that arrive while one batch is on its way form the next one, instead of the first of
 * them leaving alone. Key-prefix lookups run one GetRange each on a small pool.
 */
@Internal
public final class TablestoreAsyncLookupFunction extends AsyncLookupFunction {

    private static final long serialVersionUID = 1L;
    private static final int PREFIX_THREADS = 4;

    /** BatchGetRow requests on their way at once. */
    static final int IN_FLIGHT = 2;

    /** How long a batch that is not full waits for one more key: a fraction of a round trip. */
    static final long LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final TableLookup lookup;
    private transient LinkedBlockingQueue<Pending> pending;
    private transient Semaphore readers;
    private transient ExecutorService batcher;
    private transient ExecutorService readerPool;
    private transient ExecutorService prefixPool;

    private record Pending(RowData key, CompletableFuture<Collection<RowData>> result) {}

    TablestoreAsyncLookupFunction(TableLookup lookup) {
        this.lookup = lookup;
    }

    @Override
    public void open(FunctionContext context) {
        lookup.open(context.getMetricGroup());
        pending = new LinkedBlockingQueue<>();
        readers = new Semaphore(IN_FLIGHT);
        batcher = Executors.newSingleThreadExecutor(r -> daemon(r, "tablestore-lookup-batch"));
        readerPool =
                Executors.newFixedThreadPool(IN_FLIGHT, r -> daemon(r, "tablestore-lookup-read"));
        prefixPool =
                Executors.newFixedThreadPool(
                        PREFIX_THREADS, r -> daemon(r, "tablestore-lookup-range"));
        batcher.execute(this::formBatches);
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
        return result;
    }

    /** The batching thread: forms each batch, then hands it to a free reader. Ends at close. */
    private void formBatches() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                List<Pending> batch = new ArrayList<>(TableReader.MAX_KEYS_PER_BATCH);
                batch.add(pending.take());
                while (batch.size() < TableReader.MAX_KEYS_PER_BATCH) {
                    pending.drainTo(batch, TableReader.MAX_KEYS_PER_BATCH - batch.size());
                    if (batch.size() == TableReader.MAX_KEYS_PER_BATCH) {
                        break;
                    }
                    Pending next = pending.poll(LINGER_NANOS, TimeUnit.NANOSECONDS);
                    if (next == null) {
                        break;
                    }
                    batch.add(next);
                }
                // While every reader is busy, keys keep arriving for the next batch.
                readers.acquire();
                try {
                    readerPool.execute(
                            () -> {
                                try {
                                    read(batch);
                                } finally {
                                    readers.release();
                                }
                            });
                } catch (RejectedExecutionException closing) {
                    batch.forEach(p -> p.result().completeExceptionally(closing));
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
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
            readerPool.shutdownNow();
            prefixPool.shutdownNow();
            batcher.awaitTermination(10, TimeUnit.SECONDS);
            readerPool.awaitTermination(10, TimeUnit.SECONDS);
            prefixPool.awaitTermination(10, TimeUnit.SECONDS);
        }
        lookup.close();
    }
}
