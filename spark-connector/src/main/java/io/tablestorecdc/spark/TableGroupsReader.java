package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.meta.BatchFills;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the groups of a {@link TableGroupsPartition} one after another, each with its own {@link
 * ChannelPartitionReader} (its table's conversion), and sums their task metrics. The ends already
 * recorded for every group's channels are looked up together before the first group, and the ends
 * of the channels read afresh are filled together after the last one, so that a task's meta
 * requests do not grow with the number of tables it reads: as one group fills the ends of its
 * channels together when it ends, the task fills every group's before it succeeds. A consumer that
 * stops early still completes every group, as a reader of one group does, so that every table's end
 * snapshot is complete.
 */
final class TableGroupsReader implements PartitionReader<InternalRow> {

    private static final Logger LOG = LoggerFactory.getLogger(TableGroupsReader.class);

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;
    private final List<ChannelGroupPartition> groups;
    private final Map<String, Long> retired = new LinkedHashMap<>();
    private final List<BatchFills.End> unfilled = new ArrayList<>();
    private SharedClients<ExecutorClients.MetaTableKey, SdkMetaTableClient>.Lease metaTable;
    private Map<BatchFills.Key, ChannelCheckpoint> recorded;
    private int next;
    private ChannelPartitionReader current;
    private boolean failed;
    private boolean filled;

    TableGroupsReader(
            TablestoreSourceOptions options, OutputSchema schema, TableGroupsPartition partition) {
        this.options = options;
        this.schema = schema;
        this.groups = partition.groups();
    }

    /** The next group's reader; the first call looks up the recorded ends of every group. */
    private ChannelPartitionReader openNext() {
        if (recorded == null) {
            List<BatchFills.Key> keys = new ArrayList<>();
            groups.forEach(g -> keys.addAll(ChannelPartitionReader.keys(g)));
            recorded = fills().recorded(keys);
        }
        ChannelGroupPartition group = groups.get(next++);
        Map<String, ChannelCheckpoint> ofGroup = new HashMap<>();
        for (BatchFills.Key key : ChannelPartitionReader.keys(group)) {
            ChannelCheckpoint end = recorded.get(key);
            if (end != null) {
                ofGroup.put(key.channelId(), end);
            }
        }
        return ChannelPartitionReader.open(options, schema, group, Optional.of(ofGroup), true);
    }

    private BatchFills fills() {
        if (metaTable == null) {
            metaTable =
                    ExecutorClients.metaTable(options.tablestoreEndpoint(), options.metaTable());
        }
        return new BatchFills(metaTable.client());
    }

    /** Every group read: the ends of the channels read afresh recorded, in as few requests. */
    private void fillOnce() {
        if (!filled) {
            filled = true;
            if (!unfilled.isEmpty()) {
                fills().fillAll(unfilled);
            }
        }
    }

    @Override
    public boolean next() {
        try {
            while (true) {
                if (current == null) {
                    if (next == groups.size()) {
                        fillOnce();
                        return false;
                    }
                    current = openNext();
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
        unfilled.addAll(done.unfilledEnds());
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
     * Completes the groups left (each reader's close reads the rest of its group) and records their
     * ends, unless the task failed or was interrupted.
     */
    @Override
    public void close() {
        try {
            if (!failed && !Thread.currentThread().isInterrupted()) {
                while (current != null || next < groups.size()) {
                    if (current == null) {
                        current = openNext();
                    }
                    retire();
                }
                fillOnce();
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not complete {} after the consumer stopped early; the batch is replayed"
                            + " when it runs again: {}",
                    groups,
                    e.getMessage());
        } finally {
            CloseSequence closing = CloseSequence.of("the reader of " + groups.size() + " groups");
            if (current != null) {
                ChannelPartitionReader open = current;
                current = null;
                closing.then("close the current group", open::close);
            }
            if (metaTable != null) {
                closing.then("give the meta table client back", metaTable::close);
            }
            closing.finish();
        }
    }
}
