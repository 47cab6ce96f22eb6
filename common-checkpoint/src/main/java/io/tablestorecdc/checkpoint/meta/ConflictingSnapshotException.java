package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * Writing a batch snapshot found a row already there with different content: planning the same
 * batch twice gave different results, or two consumers write under the same tunnel.
 */
@Internal
public final class ConflictingSnapshotException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    ConflictingSnapshotException(String message) {
        super(message);
    }
}
