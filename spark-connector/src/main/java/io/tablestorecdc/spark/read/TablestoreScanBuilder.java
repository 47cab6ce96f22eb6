package io.tablestorecdc.spark.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.List;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * Plans a batch read: the columns the query needs become GetRange's columns to get, and filters on
 * the leading primary-key columns the key range it scans. Every filter is still applied by Spark to
 * the rows read, so a range that reads more than the filters match never changes a result.
 */
@Internal
public final class TablestoreScanBuilder
        implements ScanBuilder,
                SupportsPushDownRequiredColumns,
                SupportsPushDownFilters,
                SupportsPushDownLimit {

    private static final Filter[] NONE = new Filter[0];

    private final TablestoreReadOptions options;
    private final List<PrimaryKeyColumn> primaryKey;
    private StructType schema;
    private long limit = Long.MAX_VALUE;
    private KeyRangeFilters.Pushed pushed =
            new KeyRangeFilters.Pushed(
                    io.tablestorecdc.checkpoint.table.KeyBounds.all(), List.of());

    public TablestoreScanBuilder(
            TablestoreReadOptions options, List<PrimaryKeyColumn> primaryKey, StructType schema) {
        this.options = options;
        this.primaryKey = List.copyOf(primaryKey);
        this.schema = schema;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        pushed = KeyRangeFilters.translate(filters, primaryKey);
        return filters;
    }

    @Override
    public Filter[] pushedFilters() {
        return pushed.used().toArray(NONE);
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        schema = requiredSchema;
    }

    /** Spark pushes a limit only when no filter is left above the scan. */
    @Override
    public boolean pushLimit(int limit) {
        this.limit = limit;
        return true;
    }

    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    @Override
    public Scan build() {
        return new TablestoreScan(
                options, primaryKey, schema, pushed.bounds(), pushed.used(), limit);
    }
}
