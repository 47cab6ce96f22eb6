package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Duration;
import java.util.Objects;

/**
 * How transient tunnel errors are retried: at most {@code maxAttempts} calls, waiting an
 * exponentially growing, jittered backoff between them.
 *
 * <p>Needed because the SDK retries no tunnel action itself: it treats none as idempotent.
 *
 * @param maxAttempts calls in total, including the first (at least 1)
 * @param initialBackoff the wait before the second call
 * @param maxBackoff the cap on any single wait
 */
@Internal
public record TunnelRetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /** 6 attempts, 200 ms doubling to at most 5 s: about 6 s of waiting in the worst case. */
    public static final TunnelRetryPolicy DEFAULT =
            new TunnelRetryPolicy(6, Duration.ofMillis(200), Duration.ofSeconds(5));

    /** Calls once and never retries. */
    public static final TunnelRetryPolicy NONE =
            new TunnelRetryPolicy(1, Duration.ZERO, Duration.ZERO);

    public TunnelRetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException(
                    "maxAttempts must be at least 1 (1 = no retry) but was " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "Backoffs must satisfy 0 <= initialBackoff <= maxBackoff, got "
                            + initialBackoff
                            + " and "
                            + maxBackoff);
        }
    }

    /**
     * The wait after failed attempt {@code attempt} (1-based): {@code initial * 2^(attempt-1)},
     * capped, then scaled into [50%, 100%] by {@code jitter} in [0, 1) so that many readers hit by
     * the same outage do not retry in lockstep.
     */
    public Duration backoff(int attempt, double jitter) {
        long initial = initialBackoff.toMillis();
        int shift = Math.min(Math.max(attempt - 1, 0), 30);
        long exponential = initial > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : initial << shift;
        long capped = Math.min(exponential, maxBackoff.toMillis());
        return Duration.ofMillis(Math.round(capped * (0.5 + 0.5 * jitter)));
    }
}
