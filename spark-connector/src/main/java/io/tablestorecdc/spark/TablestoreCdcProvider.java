package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.readStream.format("tablestore-cdc")}: the change stream of a Tablestore table
 * through a tunnel, as a micro-batch source (see docs/spark.md).
 */
@PublicEvolving
public final class TablestoreCdcProvider implements TableProvider, DataSourceRegister {

    /** The short name for {@code format(...)}. */
    public static final String SHORT_NAME = "tablestore-cdc";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /**
     * Without a user schema: primary key, the {@code _values} map and the metadata columns, with
     * {@code _before} when a table's stream carries before-images (origin columns). The rows of
     * tables of different keys carry every table's key columns, null where a table has none.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        TablestoreSourceOptions parsed = TablestoreSourceOptions.parse(options);
        List<String> tables = SourceTables.resolve(parsed);
        return SourceTables.outputSchema(tables, SourceTables.describe(parsed, tables), null)
                .sparkSchema();
    }

    /** A user schema declares the attribute columns wanted, with types. */
    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(
            StructType schema, Transform[] partitioning, Map<String, String> properties) {
        TablestoreSourceOptions options = TablestoreSourceOptions.parse(properties);
        List<String> tables = SourceTables.resolve(options);
        OutputSchema output =
                SourceTables.outputSchema(tables, SourceTables.describe(options, tables), schema);
        return new TablestoreCdcTable(options, output);
    }
}
