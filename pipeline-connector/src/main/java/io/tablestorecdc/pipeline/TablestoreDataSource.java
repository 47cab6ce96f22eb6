package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.source.DataSource;
import org.apache.flink.cdc.common.source.EventSourceProvider;
import org.apache.flink.cdc.common.source.FlinkSourceProvider;
import org.apache.flink.cdc.common.source.MetadataAccessor;
import org.apache.flink.cdc.common.source.SupportedMetadataColumn;

/**
 * The pipeline source {@code type: tablestore}: the project's Flink source of many tables (one
 * tunnel per table, one checkpoint for all, exactly once), its changes as Flink CDC events.
 *
 * <p>Its metadata is parallel ({@link #isParallelMetadataSource()}): a table's channels are read by
 * several readers at once, so there is no one order of a table's schema changes; each reader
 * announces the schema it reads and Flink CDC's runtime merges them into the sink's schema.
 */
final class TablestoreDataSource implements DataSource {

    private final SourceSettings settings;
    private final SchemaSettings schema;
    private final Intervals intervals;

    TablestoreDataSource(SourceSettings settings, SchemaSettings schema, Intervals intervals) {
        this.settings = settings;
        this.schema = schema;
        this.intervals = intervals;
    }

    /** The Flink source's own intervals ({@code discovery.interval}, {@code heartbeat.*}). */
    record Intervals(Duration discovery, Duration heartbeat, Duration heartbeatTimeout) {}

    /**
     * The source, with each selected table's columns read now (DescribeTable, and the declared
     * columns or a sample of the table's first rows).
     */
    @Override
    public EventSourceProvider getEventSourceProvider() {
        Map<String, TableColumns> initial = new LinkedHashMap<>();
        for (String table : tables()) {
            initial.put(table, schema.columnsOf(settings.tablestoreEndpoint(), table));
        }
        TablestoreCdcSource<Event> source =
                TablestoreCdcSource.<Event>builder()
                        .setSettings(settings)
                        .setDiscoveryInterval(intervals.discovery())
                        .setHeartbeatInterval(intervals.heartbeat())
                        .setHeartbeatTimeout(intervals.heartbeatTimeout())
                        .setDeserializer(
                                new EventDeserializer(
                                        settings.instanceName(),
                                        settings.selection().single() ? settings.tableName() : "",
                                        schema,
                                        initial))
                        .build();
        return FlinkSourceProvider.of(source);
    }

    @Override
    public MetadataAccessor getMetadataAccessor() {
        return new TablestoreMetadataAccessor(settings, schema);
    }

    @Override
    public boolean isParallelMetadataSource() {
        return true;
    }

    @Override
    public SupportedMetadataColumn[] supportedMetadataColumns() {
        return new SupportedMetadataColumn[] {new OpTsMetadataColumn()};
    }

    /** The tables selected now (one ListTable with a pattern). */
    List<String> tables() {
        return settings.selectedTables(
                () -> SdkTableService.listTables(settings.tablestoreEndpoint()));
    }
}
