package io.tablestorecdc.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/** The scan of the change stream; only micro-batch streaming is supported. */
final class TablestoreCdcScan implements Scan {

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;

    TablestoreCdcScan(TablestoreSourceOptions options, OutputSchema schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public StructType readSchema() {
        return schema.sparkSchema();
    }

    @Override
    public String description() {
        return "TablestoreCdcScan[table="
                + options.tablesLabel()
                + ", tunnel="
                + options.tunnelName()
                + ", instance="
                + options.instanceName()
                + "]";
    }

    @Override
    public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
        if (SparkSession.getActiveSession().isDefined()) {
            ExecutorClients.closeWhenApplicationEnds(
                    SparkSession.getActiveSession().get().sparkContext());
        }
        return new TablestoreMicroBatchStream(options, schema, checkpointLocation);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return SourceMetrics.supported();
    }
}
