package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import io.tablestorecdc.flink.compat.WriterInitContextSink;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes row changes to a Tablestore table (Sink V2). Each subtask buffers up to {@code
 * sink.buffer-flush.max-rows} keys, coalescing the changes of one key, and writes them with
 * BatchWriteRow when the buffer is full, after {@code sink.buffer-flush.interval}, and at every
 * checkpoint, so a completed checkpoint means every change before it is in the table. After a
 * failure the job replays from its last checkpoint and writes those changes again: the writes are
 * at least once, and since every write is unconditional and keyed, the table ends as if exactly
 * once. Build one with {@link #builder()}.
 *
 * @param <IN> the input type, turned into row changes by a {@link RowWriteConverter}
 */
@PublicEvolving
public final class TablestoreSink<IN> extends WriterInitContextSink<IN> {

    private static final long serialVersionUID = 1L;

    private final TableConnection connection;
    private final WriteSettings settings;
    private final Duration flushInterval;
    private final RowWriteConverter<IN> converter;
    private final TableWriteClientFactory clients;

    TablestoreSink(
            TableConnection connection,
            WriteSettings settings,
            Duration flushInterval,
            RowWriteConverter<IN> converter,
            TableWriteClientFactory clients) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.flushInterval = Objects.requireNonNull(flushInterval, "flushInterval");
        this.converter = Objects.requireNonNull(converter, "converter");
        this.clients = Objects.requireNonNull(clients, "clients");
    }

    /** A builder of a sink of {@code IN} elements. */
    public static <IN> TablestoreSinkBuilder<IN> builder() {
        return new TablestoreSinkBuilder<>();
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) {
        return new TablestoreSinkWriter<>(
                clients.open(connection),
                connection.tableName(),
                settings,
                flushInterval,
                converter,
                context.getProcessingTimeService(),
                context.metricGroup());
    }

    /** The table the sink writes. */
    public String tableName() {
        return connection.tableName();
    }

    @Internal
    public WriteSettings settings() {
        return settings;
    }

    public Duration flushInterval() {
        return flushInterval;
    }

    /** The connection (secrets masked), the table and the write settings. */
    @Override
    public String toString() {
        return "TablestoreSink{"
                + connection.describe()
                + ", "
                + settings
                + ", flushInterval="
                + flushInterval
                + "}";
    }
}
