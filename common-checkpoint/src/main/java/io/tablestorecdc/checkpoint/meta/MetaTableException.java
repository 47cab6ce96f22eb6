package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** A meta-table operation failed; the message names the problem and what to do about it. */
@Internal
public class MetaTableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MetaTableException(String message) {
        super(message);
    }

    public MetaTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
