package io.tablestorecdc.flink.table.tablestore;

import io.tablestorecdc.checkpoint.settings.TableConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.types.logical.RowType;

/** A Tablestore table as a dimension table: lookups by full primary key or by a key prefix. */
@Internal
final class TablestoreDynamicTableSource implements LookupTableSource {

    private final TableConnection settings;
    private final RowType rowType;
    private final List<String> primaryKey;
    private final boolean async;
    private final int maxRetries;
    private final LookupCache cache;

    /**
     * @param primaryKey the table's primary-key columns, in order (checked against the DDL)
     * @param cache the partial cache, or null for {@code 'lookup.cache' = 'NONE'}
     */
    TablestoreDynamicTableSource(
            TableConnection settings,
            RowType rowType,
            List<String> primaryKey,
            boolean async,
            int maxRetries,
            LookupCache cache) {
        this.settings = settings;
        this.rowType = rowType;
        this.primaryKey = List.copyOf(primaryKey);
        this.async = async;
        this.maxRetries = maxRetries;
        this.cache = cache;
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        TableLookup lookup =
                new TableLookup(
                        settings, rowType, primaryKey, keyFields(context.getKeys()), maxRetries);
        if (async) {
            TablestoreAsyncLookupFunction function = new TablestoreAsyncLookupFunction(lookup);
            return cache == null
                    ? AsyncLookupFunctionProvider.of(function)
                    : PartialCachingAsyncLookupProvider.of(function, cache);
        }
        TablestoreLookupFunction function = new TablestoreLookupFunction(lookup);
        return cache == null
                ? LookupFunctionProvider.of(function)
                : PartialCachingLookupProvider.of(function, cache);
    }

    /**
     * The physical fields of the join's key columns in primary-key order; they must be the whole
     * primary key or a leading part of it.
     */
    private int[] keyFields(int[][] keys) {
        List<String> joined = new ArrayList<>();
        for (int[] key : keys) {
            if (key.length != 1) {
                throw new ValidationException(
                        "Table '" + settings.tableName() + "' cannot be joined on a nested field");
            }
            joined.add(rowType.getFieldNames().get(key[0]));
        }
        int[] fields = new int[joined.size()];
        for (int i = 0; i < joined.size(); i++) {
            if (i >= primaryKey.size() || !joined.contains(primaryKey.get(i))) {
                throw new ValidationException(
                        "A lookup join on Tablestore table '"
                                + settings.tableName()
                                + "' must name its whole primary key "
                                + primaryKey
                                + " or a leading part of it, but joins on "
                                + joined
                                + "; add equality conditions on the leading primary-key columns");
            }
            fields[i] = rowType.getFieldIndex(primaryKey.get(i));
        }
        return fields;
    }

    @Override
    public DynamicTableSource copy() {
        return new TablestoreDynamicTableSource(
                settings, rowType, primaryKey, async, maxRetries, cache);
    }

    @Override
    public String asSummaryString() {
        return "Tablestore(" + settings.tableName() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TablestoreDynamicTableSource other
                && settings.tableName().equals(other.settings.tableName())
                && rowType.equals(other.rowType)
                && async == other.async
                && maxRetries == other.maxRetries
                && Objects.equals(Optional.ofNullable(cache), Optional.ofNullable(other.cache));
    }

    @Override
    public int hashCode() {
        return Objects.hash(settings.tableName(), rowType, async, maxRetries);
    }
}
