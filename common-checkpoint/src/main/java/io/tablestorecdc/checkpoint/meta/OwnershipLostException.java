package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * This consumer's lease on a tunnel was taken over (it expired and another consumer, or a newer run
 * of the same one, acquired it); this consumer must stop before it interleaves with the owner.
 */
@PublicEvolving
public final class OwnershipLostException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    OwnershipLostException(String message) {
        super(message);
    }

    /** The loss as a consumer reports it: what it stops doing and how to go on. */
    public OwnershipLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
