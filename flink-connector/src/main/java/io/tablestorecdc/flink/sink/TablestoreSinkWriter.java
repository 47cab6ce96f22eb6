package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.write.BufferedTableWriter;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import io.tablestorecdc.checkpoint.write.WriteCounters;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.time.Duration;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;

/**
 * One subtask of {@link TablestoreSink}: converts each element, buffers it in the core's {@link
 * BufferedTableWriter} and flushes at checkpoints ({@link #flush}), when the buffer is full and on
 * the interval timer. Everything runs on the task's mailbox thread, timer included, so the writer
 * needs no lock; a full buffer is written before {@link #write} returns, which holds the input back
 * while the service is slow (back-pressure, no unbounded queue).
 */
@Internal
final class TablestoreSinkWriter<IN> implements SinkWriter<IN> {

    /** Metric names, in the sink's writer metric group. */
    static final String ROWS_WRITTEN = "rowsWritten";

    static final String WRITE_CAPACITY_UNITS = "writeCapacityUnits";

    static final String REQUESTS = "requests";
    static final String RETRIES = "retries";
    static final String DELETES_IGNORED = "deletesIgnored";
    static final String FLUSH_TIME = "flushTimeMillis";
    static final String LAST_FLUSH_DURATION = "lastFlushDurationMillis";
    static final String BUFFERED_ROWS = "bufferedRows";

    private final BufferedTableWriter writer;
    private final RowWriteConverter<IN> converter;
    private final ProcessingTimeService timers;
    private final long intervalMillis;
    private final WriteCounters counters;
    private final Counter recordsSend;
    private long reportedRows;

    TablestoreSinkWriter(
            TableWriteClient client,
            String table,
            WriteSettings settings,
            Duration flushInterval,
            RowWriteConverter<IN> converter,
            ProcessingTimeService timers,
            SinkWriterMetricGroup metrics) {
        this.counters = new WriteCounters();
        this.writer = new BufferedTableWriter(client, table, settings, counters);
        this.converter = converter;
        this.timers = timers;
        this.intervalMillis = flushInterval.toMillis();
        this.recordsSend = metrics.getNumRecordsSendCounter();
        registerMetrics(metrics);
        if (intervalMillis > 0) {
            scheduleFlush();
        }
    }

    private void registerMetrics(SinkWriterMetricGroup metrics) {
        metrics.gauge(ROWS_WRITTEN, counters::rowsWritten);
        metrics.gauge(REQUESTS, counters::requests);
        metrics.gauge(WRITE_CAPACITY_UNITS, counters::writeCapacityUnits);
        metrics.gauge(RETRIES, counters::retries);
        metrics.gauge(DELETES_IGNORED, counters::deletesIgnored);
        metrics.gauge(FLUSH_TIME, counters::flushTimeMillis);
        metrics.gauge(LAST_FLUSH_DURATION, counters::lastFlushMillis);
        metrics.gauge(BUFFERED_ROWS, writer::bufferedKeys);
    }

    @Override
    public void write(IN element, Context context) {
        converter.convert(element).ifPresent(writer::write);
        report();
    }

    /** At every checkpoint (and at the end of the input): everything buffered is written. */
    @Override
    public void flush(boolean endOfInput) {
        writer.flush();
        report();
    }

    @Override
    public void close() {
        writer.close();
    }

    WriteCounters counters() {
        return counters;
    }

    private void scheduleFlush() {
        timers.registerTimer(timers.getCurrentProcessingTime() + intervalMillis, t -> onTimer());
    }

    private void onTimer() {
        if (writer.bufferedKeys() > 0) {
            writer.flush();
            report();
        }
        scheduleFlush();
    }

    private void report() {
        long rows = counters.rowsWritten();
        if (rows != reportedRows) {
            recordsSend.inc(rows - reportedRows);
            reportedRows = rows;
        }
    }
}
