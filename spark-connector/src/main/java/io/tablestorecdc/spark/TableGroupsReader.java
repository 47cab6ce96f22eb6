package io.tablestorecdc.spark;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads the groups of a {@link TableGroupsPartition} one after another, each with its own {@link
 * ChannelPartitionReader} (its table's conversion, meta lookup and fill), and sums their task
 * metrics. A consumer that stops early still completes every group, as a reader of one group does,
 * so that every table's end snapshot is complete.
 */
final class TableGroupsReader implements PartitionReader<InternalRow> {

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;
    private final List<ChannelGroupPartition> groups;
    private final Map<String, Long> retired = new LinkedHashMap<>();
    private int next;
    private ChannelPartitionReader current;
    private boolean failed;

    TableGroupsReader(
            TablestoreSourceOptions options, OutputSchema schema, TableGroupsPartition partition) {
        this.options = options;
        this.schema = schema;
        this.groups = partition.groups();
    }

    @Override
    public boolean next() {
        try {
            while (true) {
                if (current == null) {
                    if (next == groups.size()) {
                        return false;
                    }
                    current = ChannelPartitionReader.open(options, schema, groups.get(next++));
                }
                if (current.next()) {
                    return true;
                }
                retire();
            }
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        }
    }

    /** The current group is done: its metrics are kept, its reader closed (its ends filled). */
    private void retire() {
        for (CustomTaskMetric m : current.currentMetricsValues()) {
            retired.merge(m.name(), m.value(), Long::sum);
        }
        ChannelPartitionReader done = current;
        current = null;
        done.close();
    }

    @Override
    public InternalRow get() {
        return current.get();
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        Map<String, Long> sums = new LinkedHashMap<>(retired);
        if (current != null) {
            for (CustomTaskMetric m : current.currentMetricsValues()) {
                sums.merge(m.name(), m.value(), Long::sum);
            }
        }
        return SourceMetrics.taskValues(
                sums.getOrDefault(SourceMetrics.RECORDS_READ, 0L),
                sums.getOrDefault(SourceMetrics.READ_REQUESTS, 0L),
                sums.getOrDefault(SourceMetrics.SKIPPED_INVALID, 0L),
                sums.getOrDefault(SourceMetrics.RETRIES, 0L));
    }

    /**
     * Completes the groups left (each reader's close reads and records the rest of its group),
     * unless the task failed or was interrupted.
     */
    @Override
    public void close() {
        try {
            if (!failed && !Thread.currentThread().isInterrupted()) {
                while (current != null || next < groups.size()) {
                    if (current == null) {
                        current = ChannelPartitionReader.open(options, schema, groups.get(next++));
                    }
                    ChannelPartitionReader done = current;
                    current = null;
                    done.close();
                }
            }
        } finally {
            if (current != null) {
                current.close();
                current = null;
            }
        }
    }
}
