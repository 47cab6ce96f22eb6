package io.tablestorecdc.cli;

/** The options are wrong in a way the parser cannot see (exit code 2). */
final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
