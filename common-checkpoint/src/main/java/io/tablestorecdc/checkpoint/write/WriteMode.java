package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a plain input row (one without the source's {@code _op}) is written. */
@PublicEvolving
public enum WriteMode {
    /** {@code put}: the row replaces the stored row; null columns are absent from it. */
    PUT("put"),
    /** {@code update}: only the given columns change; a null column is deleted. */
    UPDATE("update");

    private final String code;

    WriteMode(String code) {
        this.code = code;
    }

    /** The option value. */
    public String code() {
        return code;
    }

    /** The option value, as {@link #code()}. */
    @Override
    public String toString() {
        return code;
    }

    /**
     * The mode of option value {@code text}.
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    public static WriteMode fromCode(String text) {
        String wanted = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(m -> m.code.equals(wanted))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "Unknown write mode '"
                                                + text
                                                + "': use "
                                                + Arrays.stream(values())
                                                        .map(WriteMode::code)
                                                        .collect(Collectors.joining(" or "))));
    }
}
