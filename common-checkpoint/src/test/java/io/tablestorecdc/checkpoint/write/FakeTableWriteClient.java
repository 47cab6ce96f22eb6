package io.tablestorecdc.checkpoint.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A table in memory behind {@link TableWriteClient}: applies each request as the service does,
 * refuses requests the service refuses (a key twice, more than 200 rows), and answers scripted
 * failures per key or per request. Each row answered costs write capacity units: a failed one 1, a
 * written one 1 per started 10 columns it puts.
 */
final class FakeTableWriteClient implements TableWriteClient {

    final Map<RowKey, Map<String, CellValue>> rows = new LinkedHashMap<>();
    final List<List<RowWrite>> requests = new ArrayList<>();
    private final Map<RowKey, Deque<RowOutcome>> rowFailures = new HashMap<>();
    private final Deque<WriteRequestException> requestFailures = new ArrayDeque<>();
    private final List<KeyColumn> primaryKey;
    boolean closed;

    FakeTableWriteClient(List<KeyColumn> primaryKey) {
        this.primaryKey = primaryKey;
    }

    FakeTableWriteClient() {
        this(List.of(new KeyColumn("id", CellValue.Type.INTEGER)));
    }

    /** The next {@code times} writes of {@code key} fail with {@code code}. */
    FakeTableWriteClient failRow(RowKey key, String code, String message, int times) {
        Deque<RowOutcome> queue = rowFailures.computeIfAbsent(key, k -> new ArrayDeque<>());
        for (int i = 0; i < times; i++) {
            queue.add(RowOutcome.failed(code, message, 1));
        }
        return this;
    }

    /** The next request fails as a whole with {@code failure}. */
    FakeTableWriteClient failRequest(WriteRequestException failure) {
        requestFailures.add(failure);
        return this;
    }

    @Override
    public List<RowOutcome> batchWrite(String table, List<RowWrite> batch) {
        requests.add(List.copyOf(batch));
        assertThat(batch).hasSizeBetween(1, WriteSettings.MAX_ROWS_LIMIT);
        Set<RowKey> keys = new HashSet<>();
        batch.forEach(r -> assertThat(keys.add(r.key())).as("key %s twice", r.key()).isTrue());
        if (!requestFailures.isEmpty()) {
            throw requestFailures.poll();
        }
        List<RowOutcome> out = new ArrayList<>();
        for (RowWrite row : batch) {
            Deque<RowOutcome> failures = rowFailures.get(row.key());
            if (failures != null && !failures.isEmpty()) {
                out.add(failures.poll());
            } else {
                apply(rows, row);
                out.add(RowOutcome.ok(1 + row.puts().size() / 10)); // as if 400 B a column
            }
        }
        return out;
    }

    /** The service's semantics of one change, written independently of {@link RowWrite#then}. */
    static void apply(Map<RowKey, Map<String, CellValue>> table, RowWrite change) {
        switch (change.kind()) {
            case PUT -> table.put(change.key(), new TreeMap<>(change.puts()));
            case DELETE -> table.remove(change.key());
            case UPDATE -> {
                Map<String, CellValue> row =
                        new TreeMap<>(
                                Optional.ofNullable(table.get(change.key())).orElse(Map.of()));
                row.putAll(change.puts());
                change.deletes().forEach(row::remove);
                if (row.isEmpty()) {
                    table.remove(change.key());
                } else {
                    table.put(change.key(), row);
                }
            }
        }
    }

    @Override
    public List<KeyColumn> primaryKey(String table) {
        return primaryKey;
    }

    @Override
    public void close() {
        closed = true;
    }
}
