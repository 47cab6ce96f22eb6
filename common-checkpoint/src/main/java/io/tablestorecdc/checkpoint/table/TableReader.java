package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Reads rows of one table for lookups and bounded scans, over a {@link TableService}: full keys in
 * BatchGetRow requests of at most {@value #MAX_KEYS_PER_BATCH}, retrying only the keys that failed
 * with a transient error; key prefixes and split ranges through paged GetRange. Thread-safe when
 * the service is.
 */
@Internal
public final class TableReader {

    /** The service's limit of rows in one BatchGetRow request. */
    public static final int MAX_KEYS_PER_BATCH = 100;

    /** Rows per GetRange page: the service's own page limit. */
    public static final int PAGE_ROWS = 5000;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(20);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    /** Waits between row retries; tests pass one that returns at once. */
    @FunctionalInterface
    public interface Pause {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final TableService service;
    private final int maxRetries;
    private final Pause pause;

    /**
     * @param maxRetries how often a key that failed with a transient error is retried
     */
    public TableReader(TableService service, int maxRetries) {
        this(service, maxRetries, d -> Thread.sleep(d.toMillis()));
    }

    TableReader(TableService service, int maxRetries, Pause pause) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "maxRetries must not be negative, got " + maxRetries);
        }
        this.service = Objects.requireNonNull(service, "service");
        this.maxRetries = maxRetries;
        this.pause = pause;
    }

    /** The table's primary-key columns, in order. */
    public List<PrimaryKeySchema> primaryKey() {
        return service.primaryKey();
    }

    /**
     * The rows of {@code keys} (full primary keys), in their order: empty for a key without a row.
     * Repeated keys are read once.
     *
     * @throws RowReadException for a key that failed with a non-retriable error, or still fails
     *     after the retries
     */
    public List<Optional<Row>> get(List<PrimaryKey> keys, Set<String> columns) {
        Map<PrimaryKey, Optional<Row>> found = new LinkedHashMap<>();
        List<PrimaryKey> distinct = keys.stream().distinct().toList();
        for (int from = 0; from < distinct.size(); from += MAX_KEYS_PER_BATCH) {
            List<PrimaryKey> batch =
                    distinct.subList(from, Math.min(distinct.size(), from + MAX_KEYS_PER_BATCH));
            readBatch(batch, columns, found);
        }
        List<Optional<Row>> out = new ArrayList<>(keys.size());
        keys.forEach(k -> out.add(found.get(k)));
        return out;
    }

    private void readBatch(
            List<PrimaryKey> batch, Set<String> columns, Map<PrimaryKey, Optional<Row>> found) {
        List<PrimaryKey> pending = batch;
        for (int attempt = 1; ; attempt++) {
            List<RowResult> results = service.batchGet(pending, columns);
            if (results.size() != pending.size()) {
                throw new IllegalStateException(
                        "BatchGetRow answered "
                                + results.size()
                                + " rows for "
                                + pending.size()
                                + " keys of table '"
                                + service.tableName()
                                + "'");
            }
            List<PrimaryKey> failed = new ArrayList<>();
            for (int i = 0; i < pending.size(); i++) {
                RowResult result = results.get(i);
                PrimaryKey key = pending.get(i);
                if (result.error().isEmpty()) {
                    found.put(key, result.row());
                    continue;
                }
                ServiceError error = result.error().get();
                if (!error.retriable() || attempt > maxRetries) {
                    throw new RowReadException(service.tableName(), key, error, attempt);
                }
                failed.add(key);
            }
            if (failed.isEmpty()) {
                return;
            }
            backoff(attempt);
            pending = failed;
        }
    }

    private void backoff(int attempt) {
        long millis = FIRST_BACKOFF.toMillis() << Math.min(attempt - 1, 10);
        try {
            pause.sleep(Duration.ofMillis(Math.min(millis, MAX_BACKOFF.toMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while retrying a BatchGetRow", e);
        }
    }

    /**
     * Every row whose primary key starts with {@code prefix} (values of the leading primary-key
     * columns, in order), in key order.
     */
    public List<Row> getByPrefix(List<PrimaryKeyValue> prefix, Set<String> columns) {
        List<PrimaryKeySchema> schema = service.primaryKey();
        if (prefix.isEmpty() || prefix.size() > schema.size()) {
            throw new IllegalArgumentException(
                    "A key prefix needs 1 to "
                            + schema.size()
                            + " values of table '"
                            + service.tableName()
                            + "' primary key "
                            + names(schema)
                            + ", got "
                            + prefix.size());
        }
        KeyRange range =
                new KeyRange(
                        padded(schema, prefix, PrimaryKeyValue.INF_MIN),
                        padded(schema, prefix, PrimaryKeyValue.INF_MAX));
        List<Row> rows = new ArrayList<>();
        Optional<PrimaryKey> next = Optional.of(range.inclusiveStart());
        while (next.isPresent()) {
            RangePage page = readPage(new KeyRange(next.get(), range.exclusiveEnd()), columns);
            rows.addAll(page.rows());
            next = page.nextStart();
        }
        return rows;
    }

    /** One page of {@code range}; continue at {@link RangePage#nextStart()}. */
    public RangePage readPage(KeyRange range, Set<String> columns) {
        return service.getRange(range, columns, PAGE_ROWS);
    }

    /** Ranges that cover the whole table in key order, about {@code bytes} of data each. */
    public List<KeyRange> splits(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("A split size must be positive, got " + bytes);
        }
        return service.splits(bytes);
    }

    /**
     * The ranges a bounded scan reads: the table's splits of about {@code bytes} each, cut to
     * {@code bounds} (splits outside them dropped), in key order.
     */
    public List<KeyRange> scanRanges(long bytes, KeyBounds bounds) {
        return bounds.restrict(splits(bytes), service.primaryKey());
    }

    /**
     * The rows of {@code range} in key order, read one GetRange page at a time as the iterator
     * advances; {@code columns} empty reads every column.
     */
    public Iterator<Row> rows(KeyRange range, Set<String> columns) {
        return rows(range, columns, Long.MAX_VALUE);
    }

    /**
     * The first {@code maxRows} rows of {@code range} in key order, read as {@link #rows(KeyRange,
     * Set)} reads them; no page asks for more rows than are still wanted. While the caller works
     * through one page, the next is already asked for ({@link TableService#getRangeAsync}): at most
     * two pages are held at once.
     */
    public Iterator<Row> rows(KeyRange range, Set<String> columns, long maxRows) {
        Objects.requireNonNull(range, "range");
        if (maxRows < 0) {
            throw new IllegalArgumentException("maxRows must not be negative, got " + maxRows);
        }
        Set<String> wanted = Set.copyOf(columns);
        return new Iterator<>() {
            private Iterator<Row> page = Collections.emptyIterator();
            private Optional<PrimaryKey> next = Optional.of(range.inclusiveStart());
            private CompletableFuture<RangePage> ahead;
            private long left = maxRows;

            @Override
            public boolean hasNext() {
                while (left > 0 && !page.hasNext() && (ahead != null || next.isPresent())) {
                    RangePage read = answer(ahead != null ? ahead : ask(left));
                    ahead = null;
                    page = read.rows().iterator();
                    next = read.nextStart();
                    long after = left - read.rows().size();
                    if (after > 0 && next.isPresent()) {
                        ahead = ask(after);
                    }
                }
                return left > 0 && page.hasNext();
            }

            /** Asks for the page from {@code next} on, of at most {@code wantedRows} rows. */
            private CompletableFuture<RangePage> ask(long wantedRows) {
                return service.getRangeAsync(
                        new KeyRange(next.get(), range.exclusiveEnd()),
                        wanted,
                        (int) Math.min(PAGE_ROWS, wantedRows));
            }

            @Override
            public Row next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                left--;
                return page.next();
            }
        };
    }

    /** The page, or the exception the service's request failed with, as it was thrown. */
    private static RangePage answer(CompletableFuture<RangePage> page) {
        try {
            return page.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            page.cancel(false);
            throw new IllegalStateException("Interrupted while reading a GetRange page", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("A GetRange page failed: " + e.getCause(), e);
        }
    }

    /** The range of the whole table: INF_MIN to INF_MAX in every primary-key column. */
    public KeyRange wholeTable() {
        List<PrimaryKeySchema> schema = service.primaryKey();
        return new KeyRange(
                padded(schema, List.of(), PrimaryKeyValue.INF_MIN),
                padded(schema, List.of(), PrimaryKeyValue.INF_MAX));
    }

    static PrimaryKey padded(
            List<PrimaryKeySchema> schema, List<PrimaryKeyValue> prefix, PrimaryKeyValue fill) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < schema.size(); i++) {
            key.addPrimaryKeyColumn(
                    new PrimaryKeyColumn(
                            schema.get(i).getName(), i < prefix.size() ? prefix.get(i) : fill));
        }
        return key.build();
    }

    private static List<String> names(List<PrimaryKeySchema> schema) {
        return schema.stream().map(PrimaryKeySchema::getName).toList();
    }
}
