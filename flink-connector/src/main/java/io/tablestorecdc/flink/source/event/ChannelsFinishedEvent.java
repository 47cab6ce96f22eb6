package io.tablestorecdc.flink.source.event;

import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: these channels delivered their last record. Sent when a split finishes and
 * again after a restore for every finished split in the reader's state, so that a report lost
 * across a checkpoint cannot stall a lineage. The enumerator treats repeats as no-ops.
 */
@Internal
public final class ChannelsFinishedEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final List<String> channelIds;

    public ChannelsFinishedEvent(List<String> channelIds) {
        this.channelIds = List.copyOf(Objects.requireNonNull(channelIds));
    }

    public List<String> channelIds() {
        return channelIds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelsFinishedEvent
                && ((ChannelsFinishedEvent) o).channelIds.equals(channelIds);
    }

    @Override
    public int hashCode() {
        return channelIds.hashCode();
    }

    @Override
    public String toString() {
        return "ChannelsFinishedEvent" + channelIds;
    }
}
