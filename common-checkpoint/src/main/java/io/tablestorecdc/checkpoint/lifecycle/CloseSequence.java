package io.tablestorecdc.checkpoint.lifecycle;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The steps of a close, run in order: each runs even when an earlier one failed, and {@link
 * #finish()} rethrows the first failure with the later ones suppressed. An engine closes a job's
 * parts once, with its classloader closed right after, so a step skipped because another failed is
 * a client, a thread or a lease that outlives the job.
 *
 * <p>Every step runs with the thread's interrupt flag cleared (and set again at the end): Flink
 * interrupts the threads of a cancelled task, and the Tablestore SDK's client shutdown stops at its
 * first wait when interrupted, leaving the client's I/O threads running.
 */
@Internal
public final class CloseSequence {

    /** How long interrupted threads get to end, after the graceful stop timed out. */
    private static final long INTERRUPTED_STOP_MILLIS = 5_000;

    private final String component;
    private Throwable failure;

    private CloseSequence(String component) {
        this.component = component;
    }

    /** A close of {@code component} (named in a failure's message). */
    public static CloseSequence of(String component) {
        return new CloseSequence(component);
    }

    /** Runs {@code step}; a failure is kept for {@link #finish()}. */
    public CloseSequence then(String what, Runnable step) {
        boolean interrupted = Thread.interrupted();
        try {
            step.run();
        } catch (Throwable t) { // every step runs, whatever the one before threw
            Throwable named = t instanceof Error ? t : new CloseStepException(component, what, t);
            if (failure == null) {
                failure = named;
            } else {
                failure.addSuppressed(named);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return this;
    }

    /**
     * Stops {@code executor}: a task in flight may end (it is not interrupted: a write in flight
     * lands or fails on its own), no new one starts; after {@code timeoutMillis} the threads are
     * interrupted. Either way none runs on after the close returns.
     */
    public CloseSequence thenStop(String what, ExecutorService executor, long timeoutMillis) {
        return then(
                what,
                () -> {
                    executor.shutdown();
                    try {
                        if (!executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
                            executor.shutdownNow();
                            if (!executor.awaitTermination(
                                    INTERRUPTED_STOP_MILLIS, TimeUnit.MILLISECONDS)) {
                                throw new IllegalStateException(
                                        "its threads still run after "
                                                + (timeoutMillis + INTERRUPTED_STOP_MILLIS)
                                                + " ms");
                            }
                        }
                    } catch (InterruptedException e) {
                        executor.shutdownNow();
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while its threads ended", e);
                    }
                });
    }

    /** Rethrows the first failure of a step, if any, with the later ones suppressed. */
    public void finish() {
        Throwable first = failure;
        failure = null;
        if (first instanceof RuntimeException) {
            throw (RuntimeException) first;
        }
        if (first instanceof Error) {
            throw (Error) first;
        }
    }

    /** A step of a close that failed; the other steps ran. */
    public static final class CloseStepException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CloseStepException(String component, String step, Throwable cause) {
            super("Closing " + component + ": could not " + step + ": " + cause, cause);
        }
    }
}
