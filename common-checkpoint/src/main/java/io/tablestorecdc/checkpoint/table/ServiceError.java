package io.tablestorecdc.checkpoint.table;

import java.util.Objects;
import java.util.Set;

/**
 * An error code and message the service returned for one row.
 *
 * @param code the service's error code, for example {@code OTSServerBusy}
 * @param message the service's message
 */
public record ServiceError(String code, String message) {

    /** Row errors the service documents as transient: retrying the row may succeed. */
    static final Set<String> RETRIABLE_CODES =
            Set.of(
                    "OTSServerBusy",
                    "OTSPartitionUnavailable",
                    "OTSTableNotReady",
                    "OTSRowOperationConflict",
                    "OTSNotEnoughCapacityUnit",
                    "OTSTimeout",
                    "OTSInternalServerError",
                    "OTSServerUnavailable",
                    "OTSQuotaExhausted");

    public ServiceError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    /** Whether retrying the same request may succeed. */
    public boolean retriable() {
        return RETRIABLE_CODES.contains(code);
    }
}
