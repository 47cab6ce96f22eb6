package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.write.SdkTableWriteClient;
import io.tablestorecdc.checkpoint.write.TableWriteClient.KeyColumn;
import io.tablestorecdc.checkpoint.write.WriteRequestException;
import io.tablestorecdc.spark.read.TableReadSchema;
import io.tablestorecdc.spark.read.TablestoreReadOptions;
import io.tablestorecdc.spark.read.TablestoreScanBuilder;
import io.tablestorecdc.spark.sink.SparkRowWriteConverter;
import io.tablestorecdc.spark.sink.TablestoreWrite;
import io.tablestorecdc.spark.sink.TablestoreWriteOptions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Tablestore table as Spark sees it through {@code format("tablestore")}: read in batch as it is
 * now (see {@link TablestoreScan}); written in batch and streaming, every write an upsert (or
 * delete) by primary key, so a retried task or a re-run streaming batch writes the same rows again
 * and leaves the same table.
 */
final class TablestoreTable implements SupportsRead, SupportsWrite {

    private final TablestoreWriteOptions options;
    private final TablestoreReadOptions readOptions;
    private final StructType schema;

    TablestoreTable(
            TablestoreWriteOptions options, TablestoreReadOptions readOptions, StructType schema) {
        this.options = options;
        this.readOptions = readOptions;
        this.schema = schema;
    }

    @Override
    public String name() {
        return "tablestore:" + options.tableName();
    }

    @Override
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(
                TableCapability.BATCH_READ,
                TableCapability.BATCH_WRITE,
                TableCapability.STREAMING_WRITE,
                TableCapability.ACCEPT_ANY_SCHEMA);
    }

    /**
     * Checks the schema (the user's, or the inferred one) against the table's primary key, on the
     * driver.
     */
    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        List<PrimaryKeyColumn> primaryKey =
                SdkTableDescriber.primaryKey(
                        readOptions.connection().tablestoreEndpoint(), readOptions.tableName());
        TableReadSchema.check(primaryKey, schema, readOptions.tableName());
        return new TablestoreScanBuilder(readOptions, primaryKey, schema);
    }

    /** Checks the rows' schema against the table's primary key, on the driver. */
    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        SparkRowWriteConverter converter =
                new SparkRowWriteConverter(
                        info.schema(), primaryKey(), options.mode(), options.tableName());
        TablestoreWrite write = new TablestoreWrite(options, converter);
        return new WriteBuilder() {
            @Override
            public org.apache.spark.sql.connector.write.Write build() {
                return write;
            }
        };
    }

    private List<KeyColumn> primaryKey() {
        try (SdkTableWriteClient client =
                SdkTableWriteClient.connect(options.connection().tablestoreEndpoint())) {
            return client.primaryKey(options.tableName());
        } catch (WriteRequestException e) {
            throw new IllegalArgumentException(
                    e.getMessage()
                            + " ("
                            + e.errorCode()
                            + "). Check the options table.name, endpoint, instance.name and the"
                            + " credentials options.",
                    e);
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
