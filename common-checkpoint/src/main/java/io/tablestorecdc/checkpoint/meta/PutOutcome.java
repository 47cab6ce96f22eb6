package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** What a put-if-absent did: wrote the row, or found a row already there and left it. */
@Internal
public enum PutOutcome {
    WRITTEN,
    ALREADY_EXISTS
}
