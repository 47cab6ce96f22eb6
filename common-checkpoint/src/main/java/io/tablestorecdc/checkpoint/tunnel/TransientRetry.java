package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one SDK call, repeating it with backoff while it fails with a transient error, and turns the
 * final failure into a {@link TunnelException}.
 *
 * <p>The seam between the adapter and the SDK: everything the adapter sends goes through {@link
 * #call}, so the retry and classification rules are tested with plain lambdas that throw real SDK
 * exceptions.
 */
final class TransientRetry {

    private static final Logger LOG = LoggerFactory.getLogger(TransientRetry.class);

    /** Waits between attempts; a seam so that tests do not sleep. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final TunnelRetryPolicy policy;
    private final TunnelMetrics metrics;
    private final SecretRedactor redactor;
    private final Sleeper sleeper;
    private final DoubleSupplier jitter;

    TransientRetry(
            TunnelRetryPolicy policy,
            TunnelMetrics metrics,
            SecretRedactor redactor,
            Sleeper sleeper,
            DoubleSupplier jitter) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.redactor = Objects.requireNonNull(redactor, "redactor");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.jitter = Objects.requireNonNull(jitter, "jitter");
    }

    static TransientRetry withRealClock(
            TunnelRetryPolicy policy, TunnelMetrics metrics, SecretRedactor redactor) {
        return new TransientRetry(
                policy,
                metrics,
                redactor,
                d -> Thread.sleep(d.toMillis()),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * Calls {@code call} until it succeeds, fails with a non-transient error, or the policy's
     * attempts are used up.
     *
     * @param action the tunnel action, for messages (for example "readRecords")
     * @param target what it acts on, for messages (for example "channel c1 of tunnel t1")
     */
    <T> T call(String action, String target, Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (TunnelException e) {
                throw e;
            } catch (RuntimeException e) {
                if (!SdkErrorClassifier.isTransient(e)) {
                    Kind kind = SdkErrorClassifier.kindOf(e);
                    if (kind == Kind.INTERRUPTED) {
                        // The SDK cleared the flag; whoever interrupted this thread should see it.
                        Thread.currentThread().interrupt();
                    }
                    throw failure(kind, action, target, e, attempt);
                }
                if (attempt >= policy.maxAttempts()) {
                    throw failure(Kind.RETRIES_EXHAUSTED, action, target, e, attempt);
                }
                waitBeforeRetry(action, target, e, attempt);
            }
        }
    }

    private void waitBeforeRetry(String action, String target, RuntimeException e, int attempt) {
        Duration backoff = policy.backoff(attempt, jitter.getAsDouble());
        metrics.recordRetry();
        LOG.warn(
                "Tunnel {} on {} failed with a transient error (attempt {} of {}), retrying in {}"
                        + " ms: {}",
                action,
                target,
                attempt,
                policy.maxAttempts(),
                backoff.toMillis(),
                redactor.redact(SdkErrorClassifier.describe(e)));
        try {
            sleeper.sleep(backoff);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw failure(Kind.INTERRUPTED, action, target, e, attempt);
        }
    }

    private TunnelException failure(
            Kind kind, String action, String target, RuntimeException error, int attempts) {
        metrics.recordFailure();
        if (kind == Kind.INTERRUPTED) {
            Thread.currentThread().interrupt();
        }
        String message =
                "Tunnel "
                        + action
                        + " on "
                        + target
                        + " failed"
                        + (attempts > 1 ? " after " + attempts + " attempts" : "")
                        + " ("
                        + kind
                        + "): "
                        + SdkErrorClassifier.describe(error)
                        + ". "
                        + SdkErrorClassifier.advice(kind);
        return new TunnelException(
                kind,
                SdkErrorClassifier.codeOf(error),
                redactor.redact(message),
                redactor.safeCause(error));
    }
}
