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
 * @param consumerId the id this job owns the tunnel under (invariant 8), empty before the first
 *     start and in state written before ownership existed; kept so that a restore takes the tunnel
 *     over from the job it replaces instead of waiting for that job's lease to expire
 * @param splits every known channel, by id
 * @param checkpointId the checkpoint or savepoint this state was taken for, empty in state written
 *     before it was kept (named when a restore from older state is refused)
 * @param leaseHolder the owner-lease acquisition the job held when this state was taken, empty in
 *     state written before it was kept: a restart of a job that lost that acquisition to another
 *     run is refused, so that it does not take the tunnel back
 * @param tables in a source of several tables, each table's state by table name (each as a source
 *     of one table keeps it, its tunnel and lease its own); the fields above are then empty but the
 *     consumer id and checkpoint id. Empty in a source of one table.
 */
@Internal
public record EnumeratorState(
        Optional<String> tunnelId,
        Optional<String> consumerId,
        Map<String, Entry> splits,
        Optional<Long> checkpointId,
        Optional<String> leaseHolder,
        Map<String, EnumeratorState> tables) {

    /** One known channel. */
    public record Entry(ChannelSplit split, SplitStatus status) {
        public Entry {
            Objects.requireNonNull(split, "split");
            Objects.requireNonNull(status, "status");
        }
    }

    public EnumeratorState {
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(consumerId, "consumerId");
        Objects.requireNonNull(checkpointId, "checkpointId");
        Objects.requireNonNull(leaseHolder, "leaseHolder");
        splits = Collections.unmodifiableMap(new TreeMap<>(splits));
        tables = Collections.unmodifiableMap(new TreeMap<>(tables));
    }

    /** The state of one table (as version 4 of the serializer stored it). */
    public EnumeratorState(
            Optional<String> tunnelId,
            Optional<String> consumerId,
            Map<String, Entry> splits,
            Optional<Long> checkpointId,
            Optional<String> leaseHolder) {
        this(tunnelId, consumerId, splits, checkpointId, leaseHolder, Map.of());
    }

    /** The state of a source of several tables: each table's by name. */
    public static EnumeratorState ofTables(
            String consumerId, long checkpointId, Map<String, EnumeratorState> tables) {
        return new EnumeratorState(
                Optional.empty(),
                Optional.of(consumerId),
                Map.of(),
                Optional.of(checkpointId),
                Optional.empty(),
                tables);
    }

    /** Whether this is the state of a source of several tables. */
    public boolean ofSeveralTables() {
        return !tables.isEmpty();
    }

    /** Whether this is the state of a source of one table that has connected. */
    public boolean ofOneTable() {
        return tables.isEmpty() && tunnelId.isPresent();
    }

    /** A state without the lease acquisition (as version 3 of the serializer stored it). */
    public EnumeratorState(
            Optional<String> tunnelId,
            Optional<String> consumerId,
            Map<String, Entry> splits,
            Optional<Long> checkpointId) {
        this(tunnelId, consumerId, splits, checkpointId, Optional.empty());
    }

    /** A state without the checkpoint id (as version 2 of the serializer stored it). */
    public EnumeratorState(
            Optional<String> tunnelId, Optional<String> consumerId, Map<String, Entry> splits) {
        this(tunnelId, consumerId, splits, Optional.empty());
    }

    /** A state without a consumer id (as version 1 of the serializer stored it). */
    public EnumeratorState(Optional<String> tunnelId, Map<String, Entry> splits) {
        this(tunnelId, Optional.empty(), splits);
    }

    /** The state of a job that has not connected yet. */
    public static EnumeratorState initial() {
        return new EnumeratorState(Optional.empty(), Optional.empty(), Map.of());
    }
}
