package io.tablestorecdc.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.RowKey;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** The writer's flush triggers (checkpoint, full buffer, interval timer) and its metrics. */
class TablestoreSinkWriterTest {

    private final Requests client = new Requests();
    private final ManualTimers timers = new ManualTimers();
    private final RecordingMetrics metrics = new RecordingMetrics();

    private TablestoreSinkWriter<RowWrite> writer(int maxRows, Duration interval) {
        return new TablestoreSinkWriter<>(
                client,
                "orders",
                WriteSettings.defaults().withMaxRows(maxRows),
                interval,
                RowWriteConverter.identity(),
                timers,
                metrics);
    }

    private static RowWrite put(long id) {
        return RowWrite.put(
                RowKey.of("id", CellValue.ofInteger(id)),
                Map.of("v", CellValue.ofInteger(id)),
                SequenceInfo.NONE);
    }

    @Test
    void theIntervalTimerWritesWhatIsBufferedAndRearms() throws Exception {
        TablestoreSinkWriter<RowWrite> writer = writer(200, Duration.ofSeconds(1));
        writer.write(put(1), null);
        assertThat(client.requests).isEmpty();

        timers.advance(1_000);
        assertThat(client.requests).hasSize(1);

        writer.write(put(2), null);
        timers.advance(1_000);
        assertThat(client.requests).hasSize(2);
        assertThat(metrics.gauge(TablestoreSinkWriter.ROWS_WRITTEN)).isEqualTo(2L);
        assertThat(metrics.gauge(TablestoreSinkWriter.REQUESTS)).isEqualTo(2L);
        assertThat(metrics.gauge(TablestoreSinkWriter.WRITE_CAPACITY_UNITS)).isEqualTo(4L);
        assertThat(metrics.recordsSend.getCount()).isEqualTo(2);
    }

    @Test
    void withoutIntervalOnlyAFullBufferOrACheckpointWrites() throws Exception {
        TablestoreSinkWriter<RowWrite> writer = writer(2, Duration.ZERO);
        assertThat(timers.pending).isEmpty();
        writer.write(put(1), null);
        assertThat(metrics.gauge(TablestoreSinkWriter.BUFFERED_ROWS)).isEqualTo(1);
        writer.write(put(2), null);
        assertThat(client.requests).hasSize(1);
        writer.write(put(3), null);
        writer.flush(false);
        assertThat(client.requests).hasSize(2);
        assertThat(metrics.gauge(TablestoreSinkWriter.BUFFERED_ROWS)).isEqualTo(0);
        assertThat(metrics.recordsSend.getCount()).isEqualTo(3);
    }

    /** Records each request; every row succeeds, costing 2 write capacity units. */
    private static final class Requests implements TableWriteClient {
        final List<List<RowWrite>> requests = new ArrayList<>();

        @Override
        public List<RowOutcome> batchWrite(String table, List<RowWrite> rows) {
            requests.add(List.copyOf(rows));
            List<RowOutcome> out = new ArrayList<>();
            rows.forEach(r -> out.add(RowOutcome.ok(2))); // each row 2 write capacity units
            return out;
        }

        @Override
        public List<KeyColumn> primaryKey(String table) {
            return List.of(new KeyColumn("id", CellValue.Type.INTEGER));
        }

        @Override
        public void close() {}
    }

    /** Processing time that moves only when the test says so. */
    private static final class ManualTimers implements ProcessingTimeService {
        final List<Map.Entry<Long, ProcessingTimeCallback>> pending = new ArrayList<>();
        long now;

        @Override
        public long getCurrentProcessingTime() {
            return now;
        }

        @Override
        public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
            pending.add(Map.entry(timestamp, callback));
            return null;
        }

        void advance(long millis) throws Exception {
            now += millis;
            List<Map.Entry<Long, ProcessingTimeCallback>> due = new ArrayList<>();
            pending.removeIf(e -> e.getKey() <= now && due.add(e));
            for (Map.Entry<Long, ProcessingTimeCallback> e : due) {
                e.getValue().onProcessingTime(now);
            }
        }
    }

    /** Keeps the gauges and the send counter the writer registers. */
    private static final class RecordingMetrics extends UnregisteredMetricsGroup
            implements SinkWriterMetricGroup {
        final Map<String, Gauge<?>> gauges = new HashMap<>();
        final Counter recordsSend = new SimpleCounter();

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }

        Object gauge(String name) {
            return gauges.get(name).getValue();
        }

        @Override
        public Counter getNumRecordsOutErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public Counter getNumRecordsSendErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public Counter getNumRecordsSendCounter() {
            return recordsSend;
        }

        @Override
        public Counter getNumBytesSendCounter() {
            return new SimpleCounter();
        }

        @Override
        public void setCurrentSendTimeGauge(Gauge<Long> gauge) {}

        @Override
        public OperatorIOMetricGroup getIOMetricGroup() {
            return UnregisteredMetricsGroup.createOperatorIOMetricGroup();
        }
    }
}
