package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link TableService} that passes every call to another; extend it and override the calls to
 * observe or guard (counting requests, returning a shared service instead of closing it).
 */
@Internal
public abstract class ForwardingTableService implements TableService {

    private final TableService delegate;

    protected ForwardingTableService(TableService delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String tableName() {
        return delegate.tableName();
    }

    @Override
    public List<PrimaryKeySchema> primaryKey() {
        return delegate.primaryKey();
    }

    @Override
    public Set<String> streamOriginColumns() {
        return delegate.streamOriginColumns();
    }

    @Override
    public List<RowResult> batchGet(List<PrimaryKey> keys, Set<String> columns) {
        return delegate.batchGet(keys, columns);
    }

    @Override
    public RangePage getRange(KeyRange range, Set<String> columns, int limit) {
        return delegate.getRange(range, columns, limit);
    }

    @Override
    public CompletableFuture<RangePage> getRangeAsync(
            KeyRange range, Set<String> columns, int limit) {
        return delegate.getRangeAsync(range, columns, limit);
    }

    @Override
    public List<KeyRange> splits(long bytes) {
        return delegate.splits(bytes);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + delegate + "}";
    }
}
