package io.tablestorecdc.emulator.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for a condition in a test: polled, bounded, and named in the failure. */
public final class Await {

    private static final long POLL_MILLIS = 50;

    private Await() {}

    /** Polls {@code condition} until it holds; fails naming {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting for " + what, e);
            }
        }
    }
}
