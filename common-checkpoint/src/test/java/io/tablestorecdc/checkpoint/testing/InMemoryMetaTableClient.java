package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.meta.MetaRow;
import io.tablestorecdc.checkpoint.meta.MetaRowKey;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.meta.MetaValue;
import io.tablestorecdc.checkpoint.meta.PutOutcome;
import io.tablestorecdc.checkpoint.meta.RangePage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stateful in-memory meta table that honours conditions like the server: put-if-absent, column
 * compare-and-set, the 200-row batch limit, range reads that stop at a page limit. Counts requests
 * so tests can bound them, and can "echo" writes (apply each twice and answer the second), which is
 * what an SDK retry after a lost response looks like to the caller.
 */
public final class InMemoryMetaTableClient implements MetaTableClient {

    private final NavigableMap<MetaRowKey, MetaRow> rows = new TreeMap<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final List<Integer> batchSizes = new ArrayList<>();
    private boolean tableExists;
    private int serverPageLimit = MAX_RANGE_ROWS;
    private boolean echoWrites;
    private int requestsBeforeCrash = -1;

    public InMemoryMetaTableClient(boolean tableExists) {
        this.tableExists = tableExists;
    }

    public InMemoryMetaTableClient() {
        this(true);
    }

    /** The server returns at most this many rows per range read (it may stop early). */
    public synchronized InMemoryMetaTableClient serverPageLimit(int limit) {
        this.serverPageLimit = limit;
        return this;
    }

    /** Every write is applied twice and the second outcome returned (a retried lost response). */
    public synchronized InMemoryMetaTableClient echoWrites(boolean echo) {
        this.echoWrites = echo;
        return this;
    }

    public int requests(String kind) {
        return requests.getOrDefault(kind, new AtomicInteger()).get();
    }

    public int totalRequests() {
        return requests.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    public synchronized void resetCounts() {
        requests.clear();
        batchSizes.clear();
    }

    public synchronized List<Integer> batchSizes() {
        return List.copyOf(batchSizes);
    }

    public synchronized void putRaw(MetaRow row) {
        rows.put(row.key(), row);
    }

    public synchronized void removeRaw(MetaRowKey key) {
        rows.remove(key);
    }

    public synchronized int rowCount() {
        return rows.size();
    }

    public synchronized List<MetaRow> allRows() {
        return List.copyOf(rows.values());
    }

    /**
     * The process using this table dies after {@code requests} more requests: every request after
     * them fails, as if it were never sent, until {@link #recover()} (the process restarted).
     */
    public synchronized InMemoryMetaTableClient crashAfter(int requests) {
        this.requestsBeforeCrash = requests;
        return this;
    }

    public synchronized void recover() {
        this.requestsBeforeCrash = -1;
    }

    private void count(String kind) {
        if (requestsBeforeCrash == 0) {
            throw new MetaTableException("crashed before sending " + kind);
        }
        if (requestsBeforeCrash > 0) {
            requestsBeforeCrash--;
        }
        requests.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    }

    private void requireTable() {
        if (!tableExists) {
            throw new MetaTableException("OTSObjectNotExist: Requested table does not exist.");
        }
    }

    @Override
    public String tableName() {
        return "fake_meta";
    }

    @Override
    public synchronized boolean createTableIfMissing() {
        count("CreateTable");
        boolean created = !tableExists;
        tableExists = true;
        return created;
    }

    @Override
    public synchronized PutOutcome putIfAbsent(MetaRow row) {
        count("PutRow");
        requireTable();
        PutOutcome outcome = putOnce(row);
        return echoWrites ? putOnce(row) : outcome;
    }

    private PutOutcome putOnce(MetaRow row) {
        if (rows.containsKey(row.key())) {
            return PutOutcome.ALREADY_EXISTS;
        }
        rows.put(row.key(), row);
        return PutOutcome.WRITTEN;
    }

    @Override
    public synchronized List<PutOutcome> putAllIfAbsent(List<MetaRow> batch) {
        count("BatchWriteRow");
        requireTable();
        requireBatch(batch.stream().map(MetaRow::key).toList());
        List<PutOutcome> outcomes = new ArrayList<>();
        for (MetaRow row : batch) {
            PutOutcome outcome = putOnce(row);
            outcomes.add(echoWrites ? putOnce(row) : outcome);
        }
        return outcomes;
    }

    private void requireBatch(List<MetaRowKey> keys) {
        if (keys.size() > MAX_BATCH_ROWS) {
            throw new IllegalArgumentException("A batch write carries at most 200 rows");
        }
        batchSizes.add(keys.size());
        if (keys.isEmpty()) {
            throw new MetaTableException(
                    "OTSParameterInvalid: a batch carries 1 to 200 rows, not " + keys.size());
        }
        Set<MetaRowKey> distinct = new HashSet<>(keys);
        if (distinct.size() != keys.size()) {
            throw new MetaTableException("OTSParameterInvalid: duplicate rows in one batch");
        }
    }

    @Override
    public synchronized boolean replaceIf(MetaRow row, String column, MetaValue expected) {
        count("PutRow");
        requireTable();
        boolean replaced = replaceOnce(row, column, expected);
        return echoWrites ? replaceOnce(row, column, expected) : replaced;
    }

    @Override
    public synchronized List<Boolean> replaceAllIf(List<ConditionalReplace> replaces) {
        count("BatchWriteRow");
        requireTable();
        requireBatch(replaces.stream().map(r -> r.row().key()).toList());
        List<Boolean> replaced = new ArrayList<>();
        for (ConditionalReplace r : replaces) {
            boolean once = replaceOnce(r.row(), r.column(), r.expected());
            replaced.add(echoWrites ? replaceOnce(r.row(), r.column(), r.expected()) : once);
        }
        return replaced;
    }

    private boolean replaceOnce(MetaRow row, String column, MetaValue expected) {
        MetaRow current = rows.get(row.key());
        if (current == null || !current.column(column).equals(Optional.of(expected))) {
            return false;
        }
        rows.put(row.key(), row);
        return true;
    }

    @Override
    public synchronized void deleteAll(List<MetaRowKey> keys) {
        count("BatchWriteRow");
        requireTable();
        requireBatch(keys);
        keys.forEach(rows::remove);
    }

    @Override
    public synchronized Optional<MetaRow> get(MetaRowKey key) {
        count("GetRow");
        requireTable();
        return Optional.ofNullable(rows.get(key));
    }

    @Override
    public synchronized List<Optional<MetaRow>> getAll(List<MetaRowKey> keys) {
        count("BatchGetRow");
        requireTable();
        if (keys.size() > MAX_BATCH_GET_ROWS) {
            throw new IllegalArgumentException(
                    "A batch read asks for at most "
                            + MAX_BATCH_GET_ROWS
                            + " rows, not "
                            + keys.size());
        }
        List<Optional<MetaRow>> out = new java.util.ArrayList<>();
        keys.forEach(key -> out.add(Optional.ofNullable(rows.get(key))));
        return out;
    }

    @Override
    public synchronized RangePage readRange(
            String tunnelId, String batch, Optional<String> fromChannelId, int limit) {
        count("GetRange");
        requireTable();
        MetaRowKey start = new MetaRowKey(tunnelId, batch, fromChannelId.orElse("\u0000"));
        int pageSize = Math.min(Math.min(limit, MAX_RANGE_ROWS), serverPageLimit);
        List<MetaRow> page = new ArrayList<>();
        for (MetaRow row : rows.tailMap(start, true).values()) {
            if (!row.key().tunnelId().equals(tunnelId) || !row.key().batch().equals(batch)) {
                break;
            }
            if (page.size() == pageSize) {
                return new RangePage(page, Optional.of(row.key().channelId()));
            }
            page.add(row);
        }
        return new RangePage(page, Optional.empty());
    }

    @Override
    public void close() {}

    /** All rows under {@code (tunnelId, batch)}, for assertions. */
    public synchronized List<MetaRow> rowsUnder(String tunnelId, String batch) {
        List<MetaRow> under = new ArrayList<>();
        for (MetaRow row : rows.values()) {
            if (row.key().tunnelId().equals(tunnelId) && row.key().batch().equals(batch)) {
                under.add(row);
            }
        }
        return under;
    }

    public static Map<String, MetaValue> columns(Object... nameValue) {
        Map<String, MetaValue> map = new TreeMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            Object v = nameValue[i + 1];
            map.put(
                    (String) nameValue[i],
                    v instanceof Long l ? MetaValue.integer(l) : MetaValue.text(v.toString()));
        }
        return map;
    }
}
