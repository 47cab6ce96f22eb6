package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Set;

/**
 * The service's error codes (the SDK's {@code ErrorCode} spellings) that a row operation or request
 * may get past by trying again later: the one list the meta table, the writer and the table reader
 * retry on.
 */
@Internal
public final class TransientErrors {

    /** The codes, for messages and tests. */
    public static final Set<String> CODES =
            Set.of(
                    "OTSServerBusy",
                    "OTSPartitionUnavailable",
                    "OTSTableNotReady",
                    "OTSRowOperationConflict",
                    "OTSNotEnoughCapacityUnit",
                    "OTSTimeout",
                    "OTSInternalServerError",
                    "OTSServerUnavailable",
                    "OTSQuotaExhausted",
                    "OTSRequestTimeout");

    private TransientErrors() {}

    /** Whether an error with {@code code} may pass when the same operation is sent again. */
    public static boolean isTransient(String code) {
        return CODES.contains(code);
    }
}
