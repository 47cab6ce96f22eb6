package io.tablestorecdc.flink.source.enumerator;

import org.apache.flink.annotation.Internal;

/** Where a channel split is in the enumerator's book-keeping; persisted by stable code. */
@Internal
public enum SplitStatus {
    /** Discovered (or returned by a failed reader) and waiting for a reader. */
    UNASSIGNED("U"),
    /** Given to a reader; its position lives in that reader's state. */
    ASSIGNED("A"),
    /** Delivered its last record; a tombstone that is never read again. */
    FINISHED("F");

    private final String code;

    SplitStatus(String code) {
        this.code = code;
    }

    /** Stable code for persisted state; never the ordinal. */
    public String code() {
        return code;
    }

    public static SplitStatus fromCode(String code) {
        for (SplitStatus status : values()) {
            if (status.code.equals(code)) {
                return status;
            }
        }
        throw new IllegalArgumentException(
                "Unknown split status code '" + code + "': expected one of U, A, F");
    }
}
