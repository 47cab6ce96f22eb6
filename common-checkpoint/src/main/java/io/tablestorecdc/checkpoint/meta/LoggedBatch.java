package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.Objects;

/**
 * One entry of a tunnel's batch log: a snapshot written under {@code token} for the engine's batch
 * (Spark batch id, Flink checkpoint id) {@code sequence}. Retention walks this log.
 *
 * @param sequence the engine's batch sequence number
 * @param token the batch token the snapshot is stored under
 * @param createdAtMillis when the snapshot was first written (epoch millis)
 */
public record LoggedBatch(long sequence, BatchToken token, long createdAtMillis) {

    public LoggedBatch {
        Objects.requireNonNull(token, "token");
    }
}
