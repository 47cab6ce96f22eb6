package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.flink.sink.TableWriteClientFactory;
import io.tablestorecdc.flink.sink.TablestoreSink;
import io.tablestorecdc.flink.sink.TablestoreSinkBuilder;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The planner's view of the {@code tablestore} sink: it takes INSERT, UPDATE_AFTER and DELETE rows
 * keyed by the primary key (UPDATE_BEFORE is not needed: a write replaces the row by its key).
 */
@Internal
final class TablestoreDynamicTableSink implements DynamicTableSink {

    private final TablestoreSink<RowData> sink;
    private final Integer parallelism;
    private final WriteMode mode;

    TablestoreDynamicTableSink(TablestoreSink<RowData> sink, Integer parallelism, WriteMode mode) {
        this.sink = sink;
        this.parallelism = parallelism;
        this.mode = mode;
    }

    /** The sink of {@code builder} with the connection's settings. */
    static TablestoreSink<RowData> build(
            TablestoreSinkBuilder<RowData> builder,
            TableConnection connection,
            TableWriteClientFactory clients) {
        return builder.withConnection(connection, clients).build();
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        ChangelogMode.Builder mode = ChangelogMode.newBuilder();
        for (RowKind kind : requestedMode.getContainedKinds()) {
            if (kind != RowKind.UPDATE_BEFORE) {
                mode.addContainedKind(kind);
            }
        }
        return mode.build();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return SinkV2Provider.of(sink, parallelism);
    }

    @Override
    public DynamicTableSink copy() {
        return new TablestoreDynamicTableSink(sink, parallelism, mode);
    }

    @Override
    public String asSummaryString() {
        return "Tablestore[" + sink.tableName() + ", " + mode.code() + "]";
    }
}
