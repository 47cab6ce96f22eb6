package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * A meta-table row cannot be read: a newer format version, or a missing or malformed column. The
 * message names the row and the column.
 */
@Internal
public final class MetaFormatException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    MetaFormatException(String message) {
        super(message);
    }

    MetaFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
