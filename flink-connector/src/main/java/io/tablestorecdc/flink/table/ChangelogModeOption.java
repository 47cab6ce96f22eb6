package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.settings.OptionValues;
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

    /** The option value, as {@link #code()}. */
    @Override
    public String toString() {
        return code;
    }

    /** Parses an option value (case-insensitive), naming the choices when it is none of them. */
    public static ChangelogModeOption fromCode(String value) {
        return OptionValues.choiceOf(
                TablestoreCdcTableFactory.CHANGELOG_MODE_SPEC.key(), value, UPSERT);
    }
}
