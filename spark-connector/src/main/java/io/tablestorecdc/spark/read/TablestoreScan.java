package io.tablestorecdc.spark.read;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.spark.ExecutorClients;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * A batch read of a Tablestore table as it is now: one Spark partition per ComputeSplitsBySize
 * split of about {@code read.split.size} bytes, cut to the primary-key range the filters allow;
 * each partition pages through its range with GetRange, reading only the columns the query needs.
 */
final class TablestoreScan implements Scan, Batch {

    private final TablestoreReadOptions options;
    private final List<PrimaryKeyColumn> primaryKey;
    private final StructType readSchema;
    private final KeyBounds bounds;
    private final List<Filter> pushed;
    private final long limit;
    private InputPartition[] partitions;

    TablestoreScan(
            TablestoreReadOptions options,
            List<PrimaryKeyColumn> primaryKey,
            StructType readSchema,
            KeyBounds bounds,
            List<Filter> pushed,
            long limit) {
        this.options = options;
        this.primaryKey = List.copyOf(primaryKey);
        this.readSchema = readSchema;
        this.bounds = bounds;
        this.pushed = List.copyOf(pushed);
        this.limit = limit;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        List<String> columns = new ArrayList<>(List.of(readSchema.fieldNames()));
        return "Tablestore table "
                + options.tableName()
                + " [keys: "
                + bounds.describe(keySchema())
                + ", columns: "
                + columns
                + ", split size: "
                + TablestoreReadOptions.describeSize(options.splitSize())
                + ", PushedFilters: "
                + KeyRangeFilters.describe(pushed)
                + (limit == Long.MAX_VALUE ? "" : ", PushedLimit: " + limit)
                + "]";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    /** The splits, computed once: Spark may ask again for the same scan. */
    @Override
    public synchronized InputPartition[] planInputPartitions() {
        if (SparkSession.getActiveSession().isDefined()) {
            ExecutorClients.closeWhenApplicationEnds(
                    SparkSession.getActiveSession().get().sparkContext());
        }
        if (partitions == null) {
            List<KeyRange> ranges = ranges();
            partitions = new InputPartition[ranges.size()];
            for (int i = 0; i < ranges.size(); i++) {
                partitions[i] = KeyRangePartition.of(i, ranges.get(i));
            }
        }
        return partitions.clone();
    }

    private List<KeyRange> ranges() {
        try (SdkTableService service =
                SdkTableService.connect(
                        options.connection().tablestoreEndpoint(), options.tableName())) {
            return new TableReader(service, 0).scanRanges(options.splitSize(), bounds);
        } catch (TableStoreException e) {
            throw splitsFailed(e.getErrorCode() + ": " + e.getMessage(), e);
        } catch (ClientException e) {
            throw splitsFailed(e.getMessage(), e);
        }
    }

    private IllegalStateException splitsFailed(String why, Exception cause) {
        return new IllegalStateException(
                "Could not compute the splits of table '"
                        + options.tableName()
                        + "' ("
                        + why
                        + "). Check the options "
                        + TablestoreReadOptions.READ_SPLIT_SIZE
                        + ", table.name, endpoint, instance.name and the credentials options.",
                cause);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        List<String> keyNames = new ArrayList<>();
        primaryKey.forEach(pk -> keyNames.add(pk.name()));
        Set<String> keys = new HashSet<>(keyNames);
        return new TableRangeReaderFactory(
                options.connection(),
                new TableRowConverter(readSchema, keys, options.tableName()),
                TableRowConverter.columnsToGet(readSchema, keyNames),
                limit);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return TableReadMetrics.supported();
    }

    List<PrimaryKeySchema> keySchema() {
        List<PrimaryKeySchema> schema = new ArrayList<>();
        primaryKey.forEach(
                pk ->
                        schema.add(
                                new PrimaryKeySchema(
                                        pk.name(), PrimaryKeyType.valueOf(pk.type().name()))));
        return schema;
    }

    @Override
    public String toString() {
        return description();
    }
}
