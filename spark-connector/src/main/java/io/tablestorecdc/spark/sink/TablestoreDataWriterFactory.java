package io.tablestorecdc.spark.sink;

import io.tablestorecdc.checkpoint.write.SdkTableWriteClient;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/** Shipped to the executors: opens one writer (and SDK client) per task. */
final class TablestoreDataWriterFactory implements DataWriterFactory, StreamingDataWriterFactory {

    private static final long serialVersionUID = 1L;

    private final TablestoreWriteOptions options;
    private final SparkRowWriteConverter converter;

    TablestoreDataWriterFactory(TablestoreWriteOptions options, SparkRowWriteConverter converter) {
        this.options = options;
        this.converter = converter;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return open();
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
        return open();
    }

    private DataWriter<InternalRow> open() {
        return new TablestoreDataWriter(
                SdkTableWriteClient.connect(options.connection().tablestoreEndpoint()),
                options,
                converter);
    }
}
