package io.tablestorecdc.emulator;

import com.alicloud.openservices.tablestore.model.DefaultRetryStrategy;
import com.alicloud.openservices.tablestore.model.RetryStrategy;

/**
 * The SDK's default retry rules, plus a retry of any request the SDK's connection pool failed
 * before sending it. The pool may hand out a keep-alive connection the server has just closed; the
 * HTTP client then fails the request with "Connection closed" while allocating the connection, and
 * the SDK does not retry that for writes (it cannot tell it from a write lost mid-flight). Such a
 * request never reached the server, so sending it again is safe for every operation — unlike a
 * write whose connection closed after it was sent, which stays under the default rules (a retried
 * applied write would reach the change stream twice).
 */
final class UnsentRequestRetry implements RetryStrategy {

    static final int MAX_UNSENT_RETRIES = 3;

    private final RetryStrategy sdkDefault;
    private int unsentRetries;

    UnsentRequestRetry() {
        this(new DefaultRetryStrategy());
    }

    UnsentRequestRetry(RetryStrategy sdkDefault) {
        this.sdkDefault = sdkDefault;
    }

    @Override
    public RetryStrategy clone() {
        return new UnsentRequestRetry(sdkDefault.clone());
    }

    @Override
    public int getRetries() {
        return unsentRetries + sdkDefault.getRetries();
    }

    @Override
    public long nextPause(String action, Exception ex) {
        if (neverSent(ex) && unsentRetries < MAX_UNSENT_RETRIES) {
            unsentRetries++;
            return 1;
        }
        return sdkDefault.nextPause(action, ex);
    }

    /** Whether {@code ex} says the HTTP client failed the request while allocating a connection. */
    static boolean neverSent(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("ConnectionClosedException")
                    && raisedWhileAllocating(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean raisedWhileAllocating(Throwable t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getMethodName().equals("connectionAllocated")) {
                return true;
            }
        }
        return false;
    }
}
