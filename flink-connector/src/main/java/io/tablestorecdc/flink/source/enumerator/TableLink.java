package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

/**
 * What one table's enumerator ({@link TableEnumerator}) asks of the source's: the readers are the
 * source's, shared by every table, so assignments, events and the end of a bounded source go
 * through here. Splits and channel ids passed are the table's own (by channel id); the source's
 * enumerator names the table towards readers when it reads several. Coordinator thread only.
 */
@Internal
interface TableLink {

    /** The group of the table's metrics: the source's, or {@code table.<name>} under it. */
    MetricGroup metrics();

    /** How many channels of every table each of {@code readers} reads now. */
    Map<Integer, Integer> load(Set<Integer> readers);

    /** Assigns the table's splits, by subtask. */
    void assign(Map<Integer, List<ChannelSplit>> plan);

    /** Sends the table's tunnel client to a reader. */
    void send(int subtask, TunnelClientEvent event);

    /**
     * Whether the table is gone, after its discovery round failed with {@code error}: a source of
     * several tables then closes the table's enumerator and goes on with the others.
     */
    boolean isGone(Throwable error);

    /** Every channel of the table finished or stopped at the end position. */
    void completed();
}
