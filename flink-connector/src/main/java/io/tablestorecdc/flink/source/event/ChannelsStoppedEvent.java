package io.tablestorecdc.flink.source.event;

import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: these channels reached the source's end position ({@code
 * scan.bounded.stop-at}) and are read no further by this job. Unlike a finish, a stop is never
 * pushed to the tunnel server as {@code finished}: the channel goes on, and a later consumer
 * resumes it where this job stopped. Sent again after a restore; repeats are no-ops.
 *
 * @param channelIds the stopped channels
 */
@Internal
public record ChannelsStoppedEvent(List<String> channelIds) implements SourceEvent {

    private static final long serialVersionUID = 1L;

    public ChannelsStoppedEvent {
        channelIds = List.copyOf(Objects.requireNonNull(channelIds));
    }
}
