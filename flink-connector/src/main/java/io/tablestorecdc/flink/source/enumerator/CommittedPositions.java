package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;

/**
 * The newest engine-committed position of every channel the enumerator knows, and where it first
 * adopted each: what the meta table shows for this job. Positions enter only from completed
 * checkpoints (reader reports after {@code notifyCheckpointComplete}, or finishes recorded in a
 * completed snapshot), so a snapshot built from here never runs ahead of Flink's state. Coordinator
 * thread only.
 */
@Internal
final class CommittedPositions {

    private final Map<String, ChannelType> types = new HashMap<>();
    private final Map<String, ChannelPosition> adoptedAt = new HashMap<>();
    private final Map<String, ChannelPosition> committed = new HashMap<>();

    /** A channel this job starts reading at {@code start} (kept if already known). */
    void adopt(String channelId, ChannelType type, ChannelPosition start) {
        types.putIfAbsent(channelId, type);
        adoptedAt.putIfAbsent(channelId, start);
    }

    /** A position from a completed checkpoint. */
    void commit(String channelId, ChannelPosition position) {
        if (!adoptedAt.containsKey(channelId)) {
            adopt(channelId, ChannelType.STREAM, position);
        }
        if (!committed.getOrDefault(channelId, position).isFinished()) {
            committed.put(channelId, position);
        }
    }

    boolean isEmpty() {
        return adoptedAt.isEmpty();
    }

    /** Where each channel stands: committed position, or where it was adopted if not read yet. */
    Map<String, ChannelPosition> positions() {
        Map<String, ChannelPosition> out = new TreeMap<>();
        adoptedAt.forEach((id, start) -> out.put(id, committed.getOrDefault(id, start)));
        return out;
    }

    /** A complete snapshot (invariant 6) of every known channel under {@code token}. */
    BatchSnapshot snapshot(String tunnelId, BatchToken token) {
        Map<String, ChannelCheckpoint> entries = new TreeMap<>();
        positions().forEach((id, position) -> entries.put(id, entry(id, position)));
        return new BatchSnapshot(tunnelId, token, entries);
    }

    /** Adoption entries of every known channel (recorded once per channel in the meta table). */
    Map<String, ChannelCheckpoint> adoptions() {
        Map<String, ChannelCheckpoint> out = new TreeMap<>();
        adoptedAt.forEach(
                (id, start) -> out.put(id, ChannelCheckpoint.adopted(id, types.get(id), start)));
        return out;
    }

    private ChannelCheckpoint entry(String id, ChannelPosition position) {
        ChannelCheckpoint adopted = ChannelCheckpoint.adopted(id, types.get(id), adoptedAt.get(id));
        return position.equals(adoptedAt.get(id))
                ? adopted
                : adopted.advancedTo(position, 0L, SequenceInfo.NONE);
    }
}
