package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a tunnel's batch log: a snapshot written under {@code token} for the engine's batch
 * (Spark batch id, Flink checkpoint id) {@code sequence}. Retention walks this log.
 *
 * @param sequence the engine's batch sequence number
 * @param token the batch token the snapshot is stored under
 * @param createdAtMillis when the snapshot was first written (epoch millis)
 * @param base the full snapshot a delta snapshot completes; empty for a full snapshot. Retention
 *     keeps a base as long as a snapshot it keeps refers to it.
 */
@Internal
public record LoggedBatch(
        long sequence, BatchToken token, long createdAtMillis, Optional<BatchToken> base) {

    public LoggedBatch {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(base, "base");
    }

    /** A full snapshot's entry. */
    public LoggedBatch(long sequence, BatchToken token, long createdAtMillis) {
        this(sequence, token, createdAtMillis, Optional.empty());
    }
}
