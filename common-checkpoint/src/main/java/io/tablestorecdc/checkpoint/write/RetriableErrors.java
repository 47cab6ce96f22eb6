package io.tablestorecdc.checkpoint.write;

import java.util.Set;

/**
 * Which of the service's error codes (the SDK's {@code ErrorCode} spellings) a write may get past
 * by trying again later.
 */
final class RetriableErrors {

    private static final Set<String> CODES =
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

    private RetriableErrors() {}

    static boolean isRetriable(String code) {
        return CODES.contains(code);
    }
}
