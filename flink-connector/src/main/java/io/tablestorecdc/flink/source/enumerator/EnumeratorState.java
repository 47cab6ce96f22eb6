package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator's checkpointed state: the tunnel it reads and every channel it knows, with status.
 *
 * <p>Unassigned splits carry their start position; assigned ones the position they were assigned at
 * (the reader's state holds the live one); finished ones are tombstones.
 *
 * @param tunnelId the server id of the tunnel read, empty before the first connect; a restore onto
 *     a tunnel re-created under the same name is refused
 * @param splits every known channel, by id
 */
@Internal
public record EnumeratorState(Optional<String> tunnelId, Map<String, Entry> splits) {

    /** One known channel. */
    public record Entry(ChannelSplit split, SplitStatus status) {
        public Entry {
            Objects.requireNonNull(split, "split");
            Objects.requireNonNull(status, "status");
        }
    }

    public EnumeratorState {
        Objects.requireNonNull(tunnelId, "tunnelId");
        splits = Collections.unmodifiableMap(new TreeMap<>(splits));
    }

    /** The state of a job that has not connected yet. */
    public static EnumeratorState initial() {
        return new EnumeratorState(Optional.empty(), Map.of());
    }
}
