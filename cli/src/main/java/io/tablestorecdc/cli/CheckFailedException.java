package io.tablestorecdc.cli;

/** A check the user asked for failed (exit code 1); the message says what and what to do. */
final class CheckFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    CheckFailedException(String message) {
        super(message);
    }
}
