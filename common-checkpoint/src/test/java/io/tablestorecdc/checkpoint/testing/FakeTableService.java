package io.tablestorecdc.checkpoint.testing;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.RangePage;
import io.tablestorecdc.checkpoint.table.RowResult;
import io.tablestorecdc.checkpoint.table.ServiceError;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.checkpoint.table.TableService;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A table of (id STRING, n INTEGER) keys in memory. Records each request; fails chosen keys with
 * queued errors; answers GetRange in pages of {@code pageRows}; ComputeSplitsBySize with one split,
 * or the splits {@link #splitAt} cuts.
 */
public final class FakeTableService implements TableService {

    /** The BatchGetRow requests, in order. */
    public final List<List<PrimaryKey>> batchGets = new ArrayList<>();

    /** The GetRange requests, in order. */
    public final List<KeyRange> ranges = new ArrayList<>();

    /** The row limits of the GetRange requests, in order. */
    public final List<Integer> limits = new ArrayList<>();

    /** The split sizes ComputeSplitsBySize was asked for, in order. */
    public final List<Long> splitRequests = new ArrayList<>();

    private List<KeyRange> splits = List.of(new KeyRange(key("", 0), key("\uffff", 0)));
    private final NavigableMap<PrimaryKey, Row> rows = new TreeMap<>();
    private final Map<PrimaryKey, Deque<ServiceError>> failures = new HashMap<>();
    private final int pageRows;

    public FakeTableService(int pageRows) {
        this.pageRows = pageRows;
    }

    public static PrimaryKey key(String id, long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .build();
    }

    public void put(String id, long n, String value) {
        PrimaryKey key = key(id, n);
        rows.put(key, new Row(key, new Column[] {new Column("v", ColumnValue.fromString(value))}));
    }

    /** The next reads of {@code key} fail with {@code errors}, one each. */
    public void fail(PrimaryKey key, ServiceError... errors) {
        failures.computeIfAbsent(key, k -> new ArrayDeque<>()).addAll(List.of(errors));
    }

    @Override
    public String tableName() {
        return "fake";
    }

    @Override
    public Set<String> streamOriginColumns() {
        return Set.of();
    }

    @Override
    public List<PrimaryKeySchema> primaryKey() {
        return List.of(
                new PrimaryKeySchema("id", PrimaryKeyType.STRING),
                new PrimaryKeySchema("n", PrimaryKeyType.INTEGER));
    }

    @Override
    public List<RowResult> batchGet(List<PrimaryKey> keys, Set<String> columns) {
        if (keys.size() > TableReader.MAX_KEYS_PER_BATCH) {
            throw new IllegalArgumentException("over the service's limit: " + keys.size());
        }
        batchGets.add(List.copyOf(keys));
        List<RowResult> out = new ArrayList<>();
        for (PrimaryKey key : keys) {
            Deque<ServiceError> queued = failures.getOrDefault(key, new ArrayDeque<>());
            out.add(
                    queued.isEmpty()
                            ? RowResult.read(Optional.ofNullable(rows.get(key)))
                            : RowResult.failed(queued.poll()));
        }
        return out;
    }

    @Override
    public RangePage getRange(KeyRange range, Set<String> columns, int limit) {
        ranges.add(range);
        limits.add(limit);
        List<Row> page = new ArrayList<>();
        for (Row row :
                rows.subMap(range.inclusiveStart(), true, range.exclusiveEnd(), false).values()) {
            if (page.size() == Math.min(limit, pageRows)) {
                return new RangePage(page, Optional.of(row.getPrimaryKey()));
            }
            page.add(row);
        }
        return new RangePage(page, Optional.empty());
    }

    @Override
    public List<KeyRange> splits(long bytes) {
        splitRequests.add(bytes);
        return splits;
    }

    /** ComputeSplitsBySize answers with splits of the whole key space cut before these ids. */
    public void splitAt(String... ids) {
        List<PrimaryKey> points = new ArrayList<>();
        points.add(infinite(PrimaryKeyValue.INF_MIN));
        for (String id : ids) {
            points.add(
                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                            .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                            .addPrimaryKeyColumn("n", PrimaryKeyValue.INF_MIN)
                            .build());
        }
        points.add(infinite(PrimaryKeyValue.INF_MAX));
        List<KeyRange> cut = new ArrayList<>();
        for (int i = 0; i + 1 < points.size(); i++) {
            cut.add(new KeyRange(points.get(i), points.get(i + 1)));
        }
        splits = cut;
    }

    private static PrimaryKey infinite(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", value)
                .addPrimaryKeyColumn("n", value)
                .build();
    }

    @Override
    public void close() {}
}
