package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;

/** The words of a service error at the prompt: the core's message, in the command line's terms. */
final class ServiceErrors {

    private static final String OPTIONS =
            " (Here: --endpoint, --instance, --meta-table and the credentials options.)";

    private ServiceErrors() {}

    static String explain(Exception e) {
        if (e instanceof TunnelException
                || e instanceof MetaTableException
                || e instanceof ListTablesException) {
            return e.getMessage() + OPTIONS;
        }
        String message = e.getMessage() == null ? "" : ": " + e.getMessage();
        return e.getClass().getSimpleName()
                + message
                + ". Check the endpoint, the instance, the credentials and the network."
                + OPTIONS;
    }
}
