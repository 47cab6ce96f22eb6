package io.tablestorecdc.spark.sink;

import io.tablestorecdc.checkpoint.annotation.Internal;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * One write of rows into a Tablestore table, batch or streaming. Nothing is committed on the
 * driver: each task has written its rows when it commits, and writing them again (a retried task, a
 * re-run epoch) gives the same table, so epochs are idempotent by key.
 */
@Internal
public final class TablestoreWrite implements Write {

    private final TablestoreWriteOptions options;
    private final SparkRowWriteConverter converter;

    public TablestoreWrite(TablestoreWriteOptions options, SparkRowWriteConverter converter) {
        this.options = options;
        this.converter = converter;
    }

    @Override
    public String description() {
        return "Tablestore[" + options.tableName() + ", " + options.mode().code() + "]";
    }

    @Override
    public BatchWrite toBatch() {
        return new BatchWrite() {
            @Override
            public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
                return new TablestoreDataWriterFactory(options, converter);
            }

            @Override
            public boolean useCommitCoordinator() {
                return false;
            }

            @Override
            public void commit(WriterCommitMessage[] messages) {}

            @Override
            public void abort(WriterCommitMessage[] messages) {}
        };
    }

    @Override
    public StreamingWrite toStreaming() {
        return new StreamingWrite() {
            @Override
            public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
                return new TablestoreDataWriterFactory(options, converter);
            }

            @Override
            public boolean useCommitCoordinator() {
                return false;
            }

            @Override
            public void commit(long epochId, WriterCommitMessage[] messages) {}

            @Override
            public void abort(long epochId, WriterCommitMessage[] messages) {}
        };
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return new CustomMetric[] {
            new Metric(TablestoreDataWriter.ROWS_WRITTEN, "rows written to Tablestore"),
            new Metric(TablestoreDataWriter.REQUESTS, "BatchWriteRow requests"),
            new Metric(
                    TablestoreDataWriter.WRITE_CAPACITY_UNITS,
                    "write capacity units consumed (as Tablestore reports them)"),
            new Metric(TablestoreDataWriter.RETRIES, "rows sent again"),
            new Metric(TablestoreDataWriter.FLUSH_TIME, "time writing to Tablestore (ms)")
        };
    }

    /** A metric summed over the tasks. */
    public static final class Metric extends CustomSumMetric {
        private final String name;
        private final String description;

        /** Spark instantiates metrics by class on the driver; this one is named at build time. */
        public Metric() {
            this(TablestoreDataWriter.ROWS_WRITTEN, "rows written to Tablestore");
        }

        Metric(String name, String description) {
            this.name = name;
            this.description = description;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return description;
        }
    }
}
