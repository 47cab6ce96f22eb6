package io.tablestorecdc.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A Tablestore table's change stream through one tunnel, readable as a micro-batch stream. */
final class TablestoreCdcTable implements SupportsRead {

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;

    TablestoreCdcTable(TablestoreSourceOptions options, OutputSchema schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public String name() {
        return "tablestore-cdc:" + options.tablesLabel() + "/" + options.tunnelName();
    }

    @Override
    public StructType schema() {
        return schema.sparkSchema();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.MICRO_BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        // The options were parsed and validated when the table was loaded.
        return () -> new TablestoreCdcScan(options, schema);
    }

    @Override
    public String toString() {
        return name();
    }
}
