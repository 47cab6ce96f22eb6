package io.tablestorecdc.flink.source.metrics;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;

/**
 * The metric groups of the channels one reader reads, each {@code <name>.<channel id>} under the
 * reader's group and removed when its channel leaves the reader, so that a long-running job does
 * not keep a group for every channel it ever read.
 *
 * <p>Flink's public metric API cannot remove a group, in Flink 1.20 as in 2.x. Removing one takes
 * {@code AbstractMetricGroup#close}, the one {@code @Internal} Flink API the connector's main code
 * uses; it is kept here, alone, and is the same in both Flink lines. A group of another kind (a
 * test's or a future Flink's) stays registered until the reader closes.
 */
@Internal
public final class ChannelMetricGroups {

    private final MetricGroup parent;
    private final String name;
    private final Map<String, MetricGroup> groups = new HashMap<>();

    /** Groups named {@code name.<channel id>} under {@code parent}. */
    public ChannelMetricGroups(MetricGroup parent, String name) {
        this.parent = parent;
        this.name = name;
    }

    /** Adds the group of a channel; register its metrics on the group returned. */
    public MetricGroup add(String channelId) {
        MetricGroup group = parent.addGroup(name, channelId);
        groups.put(channelId, group);
        return group;
    }

    /** Removes the group of a channel and its metrics (nothing if it has none). */
    public void remove(String channelId) {
        MetricGroup group = groups.remove(channelId);
        if (group instanceof AbstractMetricGroup) {
            ((AbstractMetricGroup<?>) group).close();
        }
    }
}
