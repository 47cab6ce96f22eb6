package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link MetaTableClient} that passes every call to another; extend it and override the calls to
 * guard or observe (an ownership check before every write, a test that holds writes back).
 *
 * <p>{@link #close()} does nothing: whoever built the underlying client closes it.
 */
@Internal
public abstract class ForwardingMetaTableClient implements MetaTableClient {

    private final MetaTableClient delegate;

    protected ForwardingMetaTableClient(MetaTableClient delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String tableName() {
        return delegate.tableName();
    }

    @Override
    public boolean createTableIfMissing() {
        return delegate.createTableIfMissing();
    }

    @Override
    public PutOutcome putIfAbsent(MetaRow row) {
        return delegate.putIfAbsent(row);
    }

    @Override
    public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
        return delegate.putAllIfAbsent(rows);
    }

    @Override
    public boolean replaceIf(MetaRow row, String column, MetaValue expected) {
        return delegate.replaceIf(row, column, expected);
    }

    @Override
    public List<Boolean> replaceAllIf(List<ConditionalReplace> replaces) {
        return delegate.replaceAllIf(replaces);
    }

    @Override
    public void deleteAll(List<MetaRowKey> keys) {
        delegate.deleteAll(keys);
    }

    @Override
    public Optional<MetaRow> get(MetaRowKey key) {
        return delegate.get(key);
    }

    @Override
    public List<Optional<MetaRow>> getAll(List<MetaRowKey> keys) {
        return delegate.getAll(keys);
    }

    @Override
    public RangePage readRange(
            String tunnelId, String batch, Optional<String> fromChannelId, int limit) {
        return delegate.readRange(tunnelId, batch, fromChannelId, limit);
    }

    @Override
    public void close() {}
}
