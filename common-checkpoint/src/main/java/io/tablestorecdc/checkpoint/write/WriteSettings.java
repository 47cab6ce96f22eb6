package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link BufferedTableWriter} buffers and retries; both engines' sink options map onto it.
 *
 * @param maxRows rows (distinct keys) per request, 1 to {@value #MAX_ROWS_LIMIT}
 * @param maxBytes estimated bytes per request, at most {@value #MAX_REQUEST_BYTES}
 * @param maxRetries how many times rows the service refused for a passing reason (busy, timeout,
 *     quota, partition unavailable) are sent again before the write fails; 0 for never
 * @param ignoreDelete drop row deletions instead of writing them
 * @param firstBackoff the wait before the first retry; it doubles for each further one
 * @param maxBackoff the longest wait between two retries
 */
@Internal
public record WriteSettings(
        int maxRows,
        long maxBytes,
        int maxRetries,
        boolean ignoreDelete,
        Duration firstBackoff,
        Duration maxBackoff)
        implements Serializable {

    /** The service's limit of row operations in one BatchWriteRow request. */
    public static final int MAX_ROWS_LIMIT = 200;

    /** The service's limit of one BatchWriteRow request's size: 4 MB. */
    public static final long MAX_REQUEST_BYTES = 4L * 1024 * 1024;

    /** The service's limit of columns in one row change. */
    public static final int MAX_COLUMNS = 1024;

    public static final int DEFAULT_MAX_RETRIES = 3;

    // Estimates are rough: leave room for the request's framing.
    private static final long DEFAULT_MAX_BYTES = MAX_REQUEST_BYTES - 256 * 1024;

    public WriteSettings {
        if (maxRows < 1 || maxRows > MAX_ROWS_LIMIT) {
            throw new IllegalArgumentException(
                    "The rows per request must be between 1 and "
                            + MAX_ROWS_LIMIT
                            + " (the service's BatchWriteRow limit), not "
                            + maxRows);
        }
        if (maxBytes < 1 || maxBytes > MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException(
                    "The bytes per request must be between 1 and "
                            + MAX_REQUEST_BYTES
                            + " (4 MB, the service's limit), not "
                            + maxBytes);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "The number of retries must be 0 or more, not " + maxRetries);
        }
        Objects.requireNonNull(firstBackoff, "firstBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
    }

    /** 200 rows, just under 4 MB, 3 retries from 100 ms to 5 s apart, deletes written. */
    public static WriteSettings defaults() {
        return new WriteSettings(
                MAX_ROWS_LIMIT,
                DEFAULT_MAX_BYTES,
                DEFAULT_MAX_RETRIES,
                false,
                Duration.ofMillis(100),
                Duration.ofSeconds(5));
    }

    public WriteSettings withMaxRows(int rows) {
        return new WriteSettings(
                rows, maxBytes, maxRetries, ignoreDelete, firstBackoff, maxBackoff);
    }

    public WriteSettings withMaxBytes(long bytes) {
        return new WriteSettings(
                maxRows, bytes, maxRetries, ignoreDelete, firstBackoff, maxBackoff);
    }

    public WriteSettings withMaxRetries(int retries) {
        return new WriteSettings(
                maxRows, maxBytes, retries, ignoreDelete, firstBackoff, maxBackoff);
    }

    public WriteSettings withIgnoreDelete(boolean ignore) {
        return new WriteSettings(maxRows, maxBytes, maxRetries, ignore, firstBackoff, maxBackoff);
    }

    public WriteSettings withBackoff(Duration first, Duration max) {
        return new WriteSettings(maxRows, maxBytes, maxRetries, ignoreDelete, first, max);
    }

    /** The wait before retry number {@code retry} (0 for the first). */
    Duration backoff(int retry) {
        long millis = firstBackoff.toMillis() << Math.min(retry, 20);
        return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
    }
}
