package io.tablestorecdc.spark.sink;

import io.tablestorecdc.checkpoint.write.BufferedTableWriter;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import io.tablestorecdc.checkpoint.write.WriteCounters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One task's writer: buffers its rows in the core's {@link BufferedTableWriter} (a full buffer is
 * written before the next row is taken) and writes the rest when the task commits.
 */
final class TablestoreDataWriter implements DataWriter<InternalRow> {

    static final String ROWS_WRITTEN = "rowsWritten";
    static final String WRITE_CAPACITY_UNITS = "writeCapacityUnits";
    static final String REQUESTS = "requests";
    static final String RETRIES = "retries";
    static final String FLUSH_TIME = "flushTimeMillis";

    /** What a task reports when it commits: nothing the driver needs. */
    private record Written(long rows) implements WriterCommitMessage {}

    private final BufferedTableWriter writer;
    private final SparkRowWriteConverter converter;
    private final WriteCounters counters = new WriteCounters();

    TablestoreDataWriter(
            TableWriteClient client,
            TablestoreWriteOptions options,
            SparkRowWriteConverter converter) {
        this.writer =
                new BufferedTableWriter(client, options.tableName(), options.settings(), counters);
        this.converter = converter;
    }

    @Override
    public void write(InternalRow row) {
        writer.write(converter.convert(row));
    }

    @Override
    public WriterCommitMessage commit() {
        writer.flush();
        return new Written(counters.rowsWritten());
    }

    /** The rows already written stay; the task's retry writes them again, to the same result. */
    @Override
    public void abort() {}

    @Override
    public void close() {
        writer.close();
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return new CustomTaskMetric[] {
            metric(ROWS_WRITTEN, counters.rowsWritten()),
            metric(REQUESTS, counters.requests()),
            metric(WRITE_CAPACITY_UNITS, counters.writeCapacityUnits()),
            metric(RETRIES, counters.retries()),
            metric(FLUSH_TIME, counters.flushTimeMillis())
        };
    }

    private static CustomTaskMetric metric(String name, long value) {
        return new CustomTaskMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long value() {
                return value;
            }
        };
    }
}
