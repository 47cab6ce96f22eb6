package io.tablestorecdc.checkpoint.meta;

/** What a put-if-absent did: wrote the row, or found a row already there and left it. */
public enum PutOutcome {
    WRITTEN,
    ALREADY_EXISTS
}
