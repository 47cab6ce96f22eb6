package io.tablestorecdc.flink.table.tablestore;

import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyComparison;
import io.tablestorecdc.flink.scan.TableScanSource;
import io.tablestorecdc.flink.scan.TableServiceFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A Tablestore table in Flink SQL: a bounded scan of the table as it is now (projection and
 * primary-key ranges pushed down), and a dimension table for lookups by full primary key or by a
 * key prefix.
 */
@Internal
final class TablestoreDynamicTableSource
        implements ScanTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown,
                LookupTableSource {

    /** How a bounded scan splits and runs. */
    record ScanSettings(long splitBytes, Optional<Integer> parallelism) {}

    private final TableConnection settings;
    private final RowType physicalType;
    private final List<PrimaryKeySchema> primaryKey;
    private final boolean async;
    private final int maxRetries;
    private final LookupCache cache;
    private final ScanSettings scan;
    private RowType rowType;
    private KeyBounds bounds = KeyBounds.all();

    /**
     * @param primaryKey the table's primary-key columns, in order (checked against the DDL)
     * @param cache the partial cache, or null for {@code 'lookup.cache' = 'NONE'}
     */
    TablestoreDynamicTableSource(
            TableConnection settings,
            RowType rowType,
            List<PrimaryKeySchema> primaryKey,
            boolean async,
            int maxRetries,
            LookupCache cache,
            ScanSettings scan) {
        this.settings = settings;
        this.physicalType = rowType;
        this.rowType = rowType;
        this.primaryKey = List.copyOf(primaryKey);
        this.async = async;
        this.maxRetries = maxRetries;
        this.cache = cache;
        this.scan = scan;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        TableScanSource source =
                new TableScanSource(
                        TableServiceFactory.sdk(settings),
                        bounds,
                        scan.splitBytes(),
                        columnsToGet(),
                        new RowConverter(rowType),
                        context.createTypeInformation(rowType));
        return SourceProvider.of(source, scan.parallelism().orElse(null));
    }

    /**
     * The attribute columns the query reads, and the first primary-key column: a GetRange that
     * names only attribute columns skips the rows that have none of them, and the key column makes
     * it return every row. The key itself comes with every row.
     */
    Set<String> columnsToGet() {
        Set<String> keyNames = new HashSet<>(primaryKeyNames());
        Set<String> columns = new TreeSet<>();
        for (String field : rowType.getFieldNames()) {
            if (!keyNames.contains(field)) {
                columns.add(field);
            }
        }
        columns.add(primaryKey.get(0).getName());
        return columns;
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        rowType = (RowType) producedDataType.getLogicalType();
    }

    /**
     * Cuts the scan to the primary-key range the filters imply. Every filter also stays with Flink,
     * which applies it to the rows read: the answer never depends on the cut.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        PrimaryKeyFilters keyFilters = new PrimaryKeyFilters(primaryKey);
        List<KeyComparison> all = new ArrayList<>();
        Map<KeyComparison, ResolvedExpression> from = new HashMap<>();
        for (ResolvedExpression filter : filters) {
            for (KeyComparison comparison : keyFilters.comparisons(filter)) {
                all.add(comparison);
                from.putIfAbsent(comparison, filter);
            }
        }
        KeyBounds.Derived derived = KeyBounds.derive(primaryKey, all);
        bounds = derived.bounds();
        Set<ResolvedExpression> accepted = new LinkedHashSet<>();
        derived.used().forEach(c -> accepted.add(from.get(c)));
        return Result.of(List.copyOf(accepted), filters);
    }

    KeyBounds bounds() {
        return bounds;
    }

    private List<String> primaryKeyNames() {
        return primaryKey.stream().map(PrimaryKeySchema::getName).toList();
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        TableLookup lookup =
                new TableLookup(
                        settings,
                        rowType,
                        primaryKeyNames(),
                        keyFields(context.getKeys()),
                        maxRetries);
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
        List<String> primaryKey = primaryKeyNames();
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
        TablestoreDynamicTableSource copy =
                new TablestoreDynamicTableSource(
                        settings, physicalType, primaryKey, async, maxRetries, cache, scan);
        copy.rowType = rowType;
        copy.bounds = bounds;
        return copy;
    }

    /** For plans: the table, the key range read and the columns read. */
    @Override
    public String asSummaryString() {
        return "Tablestore(table="
                + settings.tableName()
                + ", keys="
                + bounds.describe(primaryKey)
                + ", columns="
                + rowType.getFieldNames()
                + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TablestoreDynamicTableSource other
                && settings.tableName().equals(other.settings.tableName())
                && physicalType.equals(other.physicalType)
                && rowType.equals(other.rowType)
                && bounds.equals(other.bounds)
                && async == other.async
                && maxRetries == other.maxRetries
                && scan.equals(other.scan)
                && Objects.equals(Optional.ofNullable(cache), Optional.ofNullable(other.cache));
    }

    @Override
    public int hashCode() {
        return Objects.hash(settings.tableName(), rowType, bounds, async, maxRetries, scan);
    }
}
