package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * A batch snapshot lacks entries its manifest lists (or has entries but no manifest): the meta
 * table no longer holds a complete snapshot for a committed batch (invariant 6).
 */
@Internal
public final class IncompleteSnapshotException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    IncompleteSnapshotException(String message) {
        super(message);
    }
}
