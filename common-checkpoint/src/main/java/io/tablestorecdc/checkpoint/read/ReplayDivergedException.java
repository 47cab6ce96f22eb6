package io.tablestorecdc.checkpoint.read;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * A replayed batch could not deliver the records its first run delivered: the channel ended or
 * stayed empty before the recorded count was reached. Continuing would lose or invent records, so
 * the batch fails instead.
 */
@Internal
public final class ReplayDivergedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ReplayDivergedException(String message) {
        super(message);
    }
}
