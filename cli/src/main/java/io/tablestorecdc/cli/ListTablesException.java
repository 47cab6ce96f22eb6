package io.tablestorecdc.cli;

/**
 * The instance's tables could not be listed to resolve {@code --table a,b} or {@code
 * --table-pattern} (exit code 3); the message names the service's error and the fix.
 */
final class ListTablesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ListTablesException(String message, Throwable cause) {
        super(message, cause);
    }
}
