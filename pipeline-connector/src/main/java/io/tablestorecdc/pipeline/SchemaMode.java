package io.tablestorecdc.pipeline;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where a table's schema comes from ({@code schema.mode}). */
public enum SchemaMode {
    /** The columns {@code schema.columns.<table>} declares; other columns are not read. */
    DECLARED,
    /** The columns the table's first rows hold at start; other columns are not read. */
    SAMPLED,
    /** As {@link #SAMPLED}, then each new column or wider type a change carries is added. */
    EVOLVING;

    /** The option text, e.g. {@code evolving}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode of option text {@code text}, or an error naming the modes there are. */
    public static SchemaMode of(String text) {
        for (SchemaMode mode : values()) {
            if (mode.code().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "Option '"
                        + PipelineOptions.SCHEMA_MODE.key()
                        + "' has invalid value '"
                        + text
                        + "': use "
                        + Arrays.stream(values())
                                .map(SchemaMode::code)
                                .collect(Collectors.joining(", ")));
    }
}
