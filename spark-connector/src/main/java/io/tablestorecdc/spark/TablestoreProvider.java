package io.tablestorecdc.spark;

import java.util.Map;
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
     * Tablestore table has no fixed attribute columns. A batch write passes the DataFrame's schema
     * instead; its columns are checked against the primary key when the write is planned.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        TablestoreReadOptions read = TablestoreReadOptions.parse(options.asCaseSensitiveMap());
        return TableReadSchema.inferred(
                SdkTableDescriber.primaryKey(
                        read.connection().tablestoreEndpoint(), read.tableName()));
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
