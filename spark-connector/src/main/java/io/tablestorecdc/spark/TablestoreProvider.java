package io.tablestorecdc.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("tablestore")}: a Tablestore table as a DataFrame sink, in batch ({@code
 * df.write.mode("append")}, upserts by primary key) and streaming ({@code writeStream}); see
 * docs/tablestore-table.md.
 */
public final class TablestoreProvider implements TableProvider, DataSourceRegister {

    /** The short name for {@code format(...)}. */
    public static final String SHORT_NAME = "tablestore";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /**
     * A write takes the schema of what it writes, so none is inferred: the table's columns are
     * those of each write, checked against the table's primary key when the write is planned.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return new StructType();
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(
            StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new TablestoreTable(TablestoreWriteOptions.parse(properties), schema);
    }
}
