package io.tablestorecdc.flink.table;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How the SQL source presents changes: keyed upserts, every change as an appended row, or a full
 * changelog from the stream's before-images.
 */
@PublicEvolving
public enum ChangelogModeOption {
    /** INSERT / UPDATE_AFTER / DELETE keyed by the table's PRIMARY KEY (which the DDL declares). */
    UPSERT("upsert"),
    /** Every change is an INSERT row; read the {@code op} metadata column to tell them apart. */
    INSERT_ONLY("insert-only"),
    /**
     * A full changelog (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE) from the before-image the
     * table's stream carries: needs the stream's origin columns to hold every column read.
     */
    ALL("all");

    private final String code;

    ChangelogModeOption(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    /** Parses an option value (case-insensitive). */
    public static ChangelogModeOption fromCode(String value) {
        for (ChangelogModeOption mode : values()) {
            if (mode.code.equalsIgnoreCase(value == null ? "" : value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "Invalid 'changelog.mode' = '" + value + "': use 'upsert', 'insert-only' or 'all'");
    }
}
