package io.tablestorecdc.checkpoint.consumer;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The newest engine-committed position of every channel a consumer knows, and where it first
 * adopted each: the committed state of a consumer whose engine commits positions rather than meta
 * snapshots (Flink: a checkpoint holds the readers' positions, and this becomes the meta table's
 * view of the job). Positions enter only from completed commits (reader reports after a checkpoint
 * completed, or finishes recorded in a completed checkpoint), so a snapshot built from here never
 * runs ahead of the engine's state. Not thread-safe: one owner thread.
 */
@Internal
public final class CommittedPositions {

    private final Map<String, ChannelType> types = new HashMap<>();
    private final Map<String, ChannelPosition> adoptedAt = new HashMap<>();
    private final Map<String, ChannelPosition> committed = new HashMap<>();

    /** A channel this consumer starts reading at {@code start} (kept if already known). */
    public void adopt(String channelId, ChannelType type, ChannelPosition start) {
        types.putIfAbsent(channelId, type);
        adoptedAt.putIfAbsent(channelId, start);
    }

    /** A position from a completed checkpoint. */
    public void commit(String channelId, ChannelPosition position) {
        if (!adoptedAt.containsKey(channelId)) {
            adopt(channelId, ChannelType.STREAM, position);
        }
        ChannelPosition current = committed.get(channelId);
        if (current == null || !current.isFinished()) {
            committed.put(channelId, position); // a finish is never moved back
        }
    }

    public boolean isEmpty() {
        return adoptedAt.isEmpty();
    }

    /** Where each channel stands: committed position, or where it was adopted if not read yet. */
    public Map<String, ChannelPosition> positions() {
        Map<String, ChannelPosition> out = new TreeMap<>();
        adoptedAt.forEach((id, start) -> out.put(id, committed.getOrDefault(id, start)));
        return out;
    }

    /** A complete snapshot (invariant 6) of every known channel under {@code token}. */
    public BatchSnapshot snapshot(String tunnelId, BatchToken token) {
        Map<String, ChannelCheckpoint> entries = new TreeMap<>();
        positions().forEach((id, position) -> entries.put(id, entry(id, position)));
        return new BatchSnapshot(tunnelId, token, entries);
    }

    /** Adoption entries of every known channel (recorded once per channel in the meta table). */
    public Map<String, ChannelCheckpoint> adoptions() {
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
