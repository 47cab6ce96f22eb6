package io.tablestorecdc.checkpoint.meta;

/** Another consumer holds a live lease on the tunnel (invariant 8); this one must not start. */
public final class OwnershipConflictException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    OwnershipConflictException(String message) {
        super(message);
    }
}
