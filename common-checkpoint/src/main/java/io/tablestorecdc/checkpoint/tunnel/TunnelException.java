package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * A tunnel call that failed for good: what happened ({@link Kind}), the server's error code when
 * there is one, and a message that says what to do.
 *
 * <p>Messages never contain the access key secret or the STS token (invariant 9).
 */
@Internal
public final class TunnelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What went wrong, as far as a caller needs to decide what to do next. */
    public enum Kind {
        /** The tunnel's stream data is past retention; it can never be read again. */
        EXPIRED,
        /** The server rejected a parameter (OTSParameterInvalid). */
        INVALID,
        /** The tunnel, table or channel does not exist. */
        NOT_FOUND,
        /** The tunnel to be created already exists. */
        ALREADY_EXISTS,
        /** The credentials were refused or lack permission. */
        ACCESS_DENIED,
        /** Transient errors persisted through every retry. */
        RETRIES_EXHAUSTED,
        /** This client no longer owns its channels (the server expired it, or it was stopped). */
        LOST_OWNERSHIP,
        /** A checkpoint conflicts with the server's (sequence number, or already finished). */
        CHECKPOINT_CONFLICT,
        /** The server's response could not be turned into our model. */
        MALFORMED_RESPONSE,
        /** The thread was interrupted while waiting to retry. */
        INTERRUPTED,
        /** Any other error the server returned; not retried. */
        REJECTED
    }

    private final Kind kind;
    private final String errorCode;

    public TunnelException(Kind kind, String message) {
        this(kind, null, message, null);
    }

    public TunnelException(Kind kind, String errorCode, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.errorCode = errorCode;
    }

    public Kind kind() {
        return kind;
    }

    /** The server's error code (for example {@code OTSTunnelExpired}), when the server sent one. */
    public Optional<String> errorCode() {
        return Optional.ofNullable(errorCode);
    }

    /** True for the errors after which the tunnel client must stop: expired or invalid. */
    public boolean stopsClient() {
        return kind == Kind.EXPIRED || kind == Kind.INVALID || kind == Kind.LOST_OWNERSHIP;
    }
}
