package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.TableStoreNoPermissionException;
import com.alicloud.openservices.tablestore.core.ErrorCode;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.util.Set;

/**
 * Decides which SDK errors are worth retrying and turns the rest into {@link TunnelException}s that
 * say what to do.
 */
final class SdkErrorClassifier {

    // Transient server-side codes. The SDK retries none of them for tunnel actions, because it
    // treats no tunnel action as idempotent.
    private static final Set<String> TRANSIENT_CODES =
            Set.of(
                    ErrorCode.SERVER_BUSY,
                    ErrorCode.TUNNEL_SERVER_UNAVAILABLE,
                    ErrorCode.STORAGE_TIMEOUT,
                    ErrorCode.INTERNAL_SERVER_ERROR,
                    ErrorCode.SERVER_UNAVAILABLE,
                    ErrorCode.PARTITION_UNAVAILABLE,
                    ErrorCode.REQUEST_TIMEOUT);

    private SdkErrorClassifier() {}

    /** True for errors a repeated call may get past: busy/unavailable servers, 5xx, network. */
    static boolean isTransient(RuntimeException error) {
        if (error instanceof TableStoreException) {
            TableStoreException e = (TableStoreException) error;
            return TRANSIENT_CODES.contains(e.getErrorCode()) || e.getHttpStatus() >= 500;
        }
        // ClientException covers network failures, timeouts waiting for a response and responses
        // that could not be parsed; all may pass on the next attempt.
        return error instanceof ClientException && !wasInterrupted(error);
    }

    /**
     * The SDK's synchronous clients turn an {@link InterruptedException} while waiting for a
     * response into a {@link ClientException} with this message, without the cause, and the
     * thread's interrupt flag cleared: only the message tells.
     */
    static final String SDK_INTERRUPTED_MESSAGE = "The thread was interrupted";

    static boolean wasInterrupted(Throwable error) {
        if (error instanceof ClientException
                && error.getMessage() != null
                && error.getMessage().startsWith(SDK_INTERRUPTED_MESSAGE)) {
            return true;
        }
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }

    /** The kind of a non-transient error. */
    static Kind kindOf(RuntimeException error) {
        if (error instanceof TableStoreNoPermissionException) {
            return Kind.ACCESS_DENIED;
        }
        if (!(error instanceof TableStoreException)) {
            return wasInterrupted(error) ? Kind.INTERRUPTED : Kind.REJECTED;
        }
        String code = ((TableStoreException) error).getErrorCode();
        if (code == null) {
            return Kind.REJECTED;
        }
        switch (code) {
            case ErrorCode.TUNNEL_EXPIRED:
                return Kind.EXPIRED;
            case ErrorCode.INVALID_PARAMETER:
                return Kind.INVALID;
            case ErrorCode.OBJECT_NOT_EXIST:
                return Kind.NOT_FOUND;
            case ErrorCode.TUNNEL_EXIST:
            case ErrorCode.OBJECT_ALREADY_EXIST:
                return Kind.ALREADY_EXISTS;
            case ErrorCode.AUTHORIZATION_FAILURE:
                return Kind.ACCESS_DENIED;
            case ErrorCode.SEQUENCE_NUMBER_NOT_MATCH:
                return Kind.CHECKPOINT_CONFLICT;
            case ErrorCode.RESOURCE_GONE:
                // The server no longer knows this client: its heartbeats timed out, or a new owner
                // of the tunnel shut it down when it started. Its channels are another client's.
                return Kind.LOST_OWNERSHIP;
            default:
                return Kind.REJECTED;
        }
    }

    /** What a user should do about an error of this kind. */
    static String advice(Kind kind) {
        switch (kind) {
            case EXPIRED:
                return "The tunnel's stream data is past the table's stream retention and can"
                        + " never be read again. Create a new tunnel (or delete and re-create this"
                        + " one) and restart the consumer from the base data or a fresh start"
                        + " position; its old checkpoints cannot be resumed.";
            case INVALID:
                return "Check the table and tunnel names; if the tunnel was deleted or re-created,"
                        + " or this client was expired by the server, restart the consumer so it"
                        + " connects again.";
            case NOT_FOUND:
                return "Check the table and tunnel names and the instance, or let the connector"
                        + " create the tunnel.";
            case ALREADY_EXISTS:
                return "Use the existing tunnel or choose another tunnel name.";
            case ACCESS_DENIED:
                return "Check the access key id and secret (refresh an expired STS token) and that"
                        + " the RAM policy allows the tunnel actions on this instance.";
            case LOST_OWNERSHIP:
                return "The tunnel server no longer knows this client: it was silent longer than"
                        + " the heartbeat timeout, or another consumer took the tunnel over and"
                        + " shut it down. Make sure only one query or job reads this tunnel, then"
                        + " restart the consumer from its checkpoint.";
            case CHECKPOINT_CONFLICT:
                return "Another client wrote this channel's checkpoint; make sure only one"
                        + " consumer uses this tunnel.";
            case RETRIES_EXHAUSTED:
                return "The tunnel server stayed busy or unreachable: check the endpoint and the"
                        + " network, or allow more retries.";
            case INTERRUPTED:
                return "The consumer is shutting down.";
            default:
                return "This error is not retried; see the server's message.";
        }
    }

    /** The server's code and message (and request id) of an SDK error, for our messages. */
    static String describe(RuntimeException error) {
        if (error instanceof TableStoreException) {
            TableStoreException e = (TableStoreException) error;
            return e.getErrorCode()
                    + " (HTTP "
                    + e.getHttpStatus()
                    + ", request id "
                    + e.getRequestId()
                    + "): "
                    + e.getMessage();
        }
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    static String codeOf(RuntimeException error) {
        return error instanceof TableStoreException
                ? ((TableStoreException) error).getErrorCode()
                : null;
    }
}
