package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** The meta table holds no snapshot for a batch token the engine has committed. */
@Internal
public final class SnapshotNotFoundException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    SnapshotNotFoundException(String message) {
        super(message);
    }
}
