package io.tablestorecdc.flink.table.tablestore;

import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'tablestore'} as a source: a bounded scan of a Tablestore table as it is
 * now, and a dimension table in lookup joins. The DDL's primary key must be the table's. The one
 * factory of the connector ({@code TablestoreTableFactory}) creates its sources here.
 */
@Internal
public final class TablestoreTableSources {

    /** The options only the source side reads (the connection options aside). */
    public static final Set<ConfigOption<?>> OPTIONS =
            Set.of(
                    TablestoreTableOptions.LOOKUP_ASYNC,
                    LookupOptions.CACHE_TYPE,
                    LookupOptions.PARTIAL_CACHE_MAX_ROWS,
                    LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
                    LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
                    LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY,
                    LookupOptions.MAX_RETRIES,
                    TablestoreTableOptions.SCAN_SPLIT_SIZE,
                    FactoryUtil.SOURCE_PARALLELISM);

    private TablestoreTableSources() {}

    /**
     * The source of the table {@code context} describes, its options validated by {@code factory}'s
     * helper (which knows the sink's options too).
     */
    public static DynamicTableSource create(
            DynamicTableFactory factory, DynamicTableFactory.Context context) {
        FactoryUtil.TableFactoryHelper helper =
                FactoryUtil.createTableFactoryHelper(factory, context);
        String subject =
                "table '"
                        + context.getObjectIdentifier().asSummaryString()
                        + "' ('connector' = '"
                        + factory.factoryIdentifier()
                        + "')";
        TableConnection settings =
                parse(
                        () ->
                                TableConnection.parse(
                                        context.getCatalogTable().getOptions(),
                                        key ->
                                                "add '"
                                                        + key
                                                        + "' = '...' to the table's WITH clause",
                                        subject,
                                        "docs/tablestore-table.md"));
        helper.validate();
        ReadableConfig options = helper.getOptions();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType rowType = (RowType) schema.toPhysicalRowDataType().getLogicalType();
        parse(() -> new RowConverter(rowType));
        List<PrimaryKeySchema> primaryKey = checkPrimaryKey(settings, schema, subject);
        int maxRetries = options.get(LookupOptions.MAX_RETRIES);
        if (maxRetries < 0) {
            throw new ValidationException(
                    "Option 'lookup.max-retries' must not be negative, got " + maxRetries);
        }
        return new TablestoreDynamicTableSource(
                settings,
                rowType,
                primaryKey,
                options.get(TablestoreTableOptions.LOOKUP_ASYNC),
                maxRetries,
                cache(options),
                scanSettings(options));
    }

    private static TablestoreDynamicTableSource.ScanSettings scanSettings(ReadableConfig options) {
        MemorySize splitSize = options.get(TablestoreTableOptions.SCAN_SPLIT_SIZE);
        if (splitSize.getBytes() <= 0) {
            throw new ValidationException(
                    "Option 'scan.split-size' must be positive, got '"
                            + splitSize
                            + "'; set a data size such as '64 mb'");
        }
        Optional<Integer> parallelism = options.getOptional(FactoryUtil.SOURCE_PARALLELISM);
        if (parallelism.isPresent() && parallelism.get() <= 0) {
            throw new ValidationException(
                    "Option 'scan.parallelism' must be positive, got "
                            + parallelism.get()
                            + "; remove it to use the job's parallelism");
        }
        return new TablestoreDynamicTableSource.ScanSettings(splitSize.getBytes(), parallelism);
    }

    private static LookupCache cache(ReadableConfig options) {
        switch (options.get(LookupOptions.CACHE_TYPE)) {
            case PARTIAL:
                return DefaultLookupCache.fromConfig(options);
            case NONE:
                return null;
            default:
                throw new ValidationException(
                        "Option 'lookup.cache' = '"
                                + options.get(LookupOptions.CACHE_TYPE)
                                + "' is not supported by Tablestore; use NONE or PARTIAL");
        }
    }

    /** The table's primary key, after checking the DDL declares the same one. */
    private static List<PrimaryKeySchema> checkPrimaryKey(
            TableConnection settings, ResolvedSchema schema, String subject) {
        List<String> declared = schema.getPrimaryKey().map(k -> k.getColumns()).orElse(List.of());
        List<PrimaryKeySchema> key;
        try (SdkTableService service =
                SdkTableService.connect(settings.tablestoreEndpoint(), settings.tableName())) {
            key = service.primaryKey();
        }
        List<String> actual = key.stream().map(PrimaryKeySchema::getName).toList();
        if (!declared.equals(actual)) {
            throw new ValidationException(
                    "The primary key of "
                            + subject
                            + " is "
                            + (declared.isEmpty() ? "not declared" : declared.toString())
                            + " but Tablestore table '"
                            + settings.tableName()
                            + "' has primary key "
                            + actual
                            + "; declare PRIMARY KEY ("
                            + String.join(", ", actual)
                            + ") NOT ENFORCED in the DDL");
        }
        return key;
    }

    private static <T> T parse(Supplier<T> step) {
        try {
            return step.get();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }
}
