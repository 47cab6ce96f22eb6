package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** A request to the service failed as a whole: its error code, and whether to try it again. */
@Internal
public final class WriteRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String errorCode;
    private final boolean retriable;

    public WriteRequestException(
            String errorCode, String message, boolean retriable, Throwable cause) {
        super(message, cause);
        this.errorCode = errorCode;
        this.retriable = retriable;
    }

    /** The service's code, or {@code ClientError} for a failure on the way (network, timeout). */
    public String errorCode() {
        return errorCode;
    }

    /** Whether sending the same request again may succeed. */
    public boolean retriable() {
        return retriable;
    }
}
