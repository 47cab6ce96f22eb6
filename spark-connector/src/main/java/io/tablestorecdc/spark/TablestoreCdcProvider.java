package io.tablestorecdc.spark;

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
public final class TablestoreCdcProvider implements TableProvider, DataSourceRegister {

    /** The short name for {@code format(...)}. */
    public static final String SHORT_NAME = "tablestore-cdc";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /**
     * Without a user schema: primary key, the {@code _values} map and the metadata columns, with
     * {@code _before} when a table's stream carries before-images (origin columns). The tables of a
     * source of several tables must share their primary key.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        TablestoreSourceOptions parsed = TablestoreSourceOptions.parse(options);
        List<String> tables = SourceTables.resolve(parsed);
        Map<String, SdkTableDescriber.Description> described =
                SourceTables.describe(parsed, tables);
        boolean before =
                described.values().stream().anyMatch(d -> !d.streamOriginColumns().isEmpty());
        return OutputSchema.inferred(described.get(tables.get(0)).primaryKey(), before)
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
                OutputSchema.of(
                        SourceTables.describe(options, tables).get(tables.get(0)).primaryKey(),
                        schema);
        return new TablestoreCdcTable(options, output);
    }
}
