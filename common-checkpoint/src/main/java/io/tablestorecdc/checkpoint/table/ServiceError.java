package io.tablestorecdc.checkpoint.table;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.TransientErrors;
import java.util.Objects;

/**
 * An error code and message the service returned for one row.
 *
 * @param code the service's error code, for example {@code OTSServerBusy}
 * @param message the service's message
 */
@Internal
public record ServiceError(String code, String message) {

    public ServiceError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    /** Whether retrying the same request may succeed. */
    public boolean retriable() {
        return TransientErrors.isTransient(code);
    }
}
