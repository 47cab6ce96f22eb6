package io.tablestorecdc.flink.source.event;

import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: checkpoint {@code checkpointId} completed, and these are the positions of
 * this reader's channels in it. Only positions from completed checkpoints are ever pushed to the
 * tunnel server (invariant 3).
 */
@Internal
public final class CommittedPositionsEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final long checkpointId;
    private final List<ChannelSplit> positions;
    private final Set<String> caughtUp;

    public CommittedPositionsEvent(long checkpointId, List<ChannelSplit> positions) {
        this(checkpointId, positions, Set.of());
    }

    /**
     * @param caughtUp the channels of {@code positions} whose reader had found them drained exactly
     *     at their checkpointed position (for the catch-up report)
     */
    public CommittedPositionsEvent(
            long checkpointId, List<ChannelSplit> positions, Set<String> caughtUp) {
        this.checkpointId = checkpointId;
        this.positions = List.copyOf(Objects.requireNonNull(positions));
        this.caughtUp = Set.copyOf(caughtUp);
    }

    public Set<String> caughtUp() {
        return caughtUp;
    }

    public long checkpointId() {
        return checkpointId;
    }

    public List<ChannelSplit> positions() {
        return positions;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommittedPositionsEvent
                && ((CommittedPositionsEvent) o).checkpointId == checkpointId
                && ((CommittedPositionsEvent) o).positions.equals(positions)
                && ((CommittedPositionsEvent) o).caughtUp.equals(caughtUp);
    }

    @Override
    public int hashCode() {
        return Objects.hash(checkpointId, positions, caughtUp);
    }

    @Override
    public String toString() {
        return "CommittedPositionsEvent{checkpoint="
                + checkpointId
                + ", "
                + positions
                + ", caught up "
                + caughtUp
                + "}";
    }
}
