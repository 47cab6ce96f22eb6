package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.table.SampledColumns;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.spark.read.TableReadSchema;
import io.tablestorecdc.spark.read.TablestoreReadOptions;
import io.tablestorecdc.spark.sink.TablestoreWriteOptions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("tablestore")}: a Tablestore table as a DataFrame source in batch ({@code
 * spark.read}, the table as it is now) and as a sink, in batch ({@code df.write.mode("append")},
 * upserts by primary key) and streaming ({@code writeStream}); see docs/tablestore-table.md.
 */
@PublicEvolving
public final class TablestoreProvider implements TableProvider, DataSourceRegister {

    /** The short name for {@code format(...)}. */
    public static final String SHORT_NAME = "tablestore";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /**
     * The schema of a read without {@code .schema(...)}: the table's primary-key columns (from
     * DescribeTable) and the {@value OutputSchema#VALUES} map of attribute values, since a
     * Tablestore table has no fixed attribute columns; with {@code read.schema.sample.rows}, typed
     * attribute columns from the first rows instead. A batch write passes the DataFrame's schema
     * instead; its columns are checked against the primary key when the write is planned.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        TablestoreReadOptions read = TablestoreReadOptions.parse(options.asCaseSensitiveMap());
        List<PrimaryKeyColumn> primaryKey =
                SdkTableDescriber.primaryKey(
                        read.connection().tablestoreEndpoint(), read.tableName());
        if (read.sampleRows() == 0) {
            return TableReadSchema.inferred(primaryKey);
        }
        return sampled(read, primaryKey);
    }

    private static StructType sampled(
            TablestoreReadOptions read, List<PrimaryKeyColumn> primaryKey) {
        SampledColumns sample = new SampledColumns();
        try (SdkTableService service =
                SdkTableService.connect(read.connection().tablestoreEndpoint(), read.tableName())) {
            TableReader reader = new TableReader(service, 0);
            reader.rows(reader.wholeTable(), Set.of(), read.sampleRows())
                    .forEachRemaining(sample::add);
            return TableReadSchema.sampled(primaryKey, sample);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Inferring the schema of table '"
                            + read.tableName()
                            + "' from its first "
                            + read.sampleRows()
                            + " rows ("
                            + TablestoreReadOptions.READ_SCHEMA_SAMPLE_ROWS
                            + ") failed: "
                            + e.getMessage()
                            + " In Spark: give .schema(...), or leave "
                            + TablestoreReadOptions.READ_SCHEMA_SAMPLE_ROWS
                            + " unset to read the "
                            + OutputSchema.VALUES
                            + " map.",
                    e);
        }
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(
            StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new TablestoreTable(
                TablestoreWriteOptions.parse(properties),
                TablestoreReadOptions.parse(properties),
                schema);
    }
}
