package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * Rows could not be written: a row the service refused for good (named by its primary key, with the
 * service's code and message), retries used up, or input that cannot be written; the message says
 * which and what to do.
 */
@PublicEvolving
public final class TablestoreWriteException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failed write, worded for the user (never with a secret). */
    public TablestoreWriteException(String message) {
        super(message);
    }

    /** A failed write and the service error behind it. */
    public TablestoreWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
