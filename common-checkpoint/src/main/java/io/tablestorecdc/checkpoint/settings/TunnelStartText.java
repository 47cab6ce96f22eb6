package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** The text form of option {@code tunnel.start}: {@code latest}, {@code earliest} or an instant. */
@Internal
public final class TunnelStartText {

    static final String LATEST = "latest";
    static final String EARLIEST = "earliest";

    /** The accepted values, as every error message about {@code tunnel.start} lists them. */
    static final String ACCEPTED =
            "use latest (default), earliest or an ISO-8601 instant such as 2024-05-01T00:00:00Z";

    private TunnelStartText() {}

    /**
     * Parses {@code latest} or {@code earliest} (case-insensitive) or an ISO-8601 instant; blanks
     * around the value are ignored.
     *
     * @throws IllegalArgumentException naming the option, the value and the accepted values
     */
    public static TunnelStart parse(String value) {
        String text = value == null ? "" : value.trim();
        switch (text.toLowerCase(Locale.ROOT)) {
            case LATEST:
                return TunnelStart.latest();
            case EARLIEST:
                return TunnelStart.earliest();
            default:
                try {
                    return TunnelStart.at(Instant.parse(text));
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException(
                            OptionValues.invalidValue(
                                    SourceOption.TUNNEL_START.key(), value, ACCEPTED));
                }
        }
    }

    /**
     * The option text of {@code start}, which {@link #parse} reads back (its end is not part of
     * it).
     */
    public static String format(TunnelStart start) {
        return switch (start.kind()) {
            case LATEST -> LATEST;
            case EARLIEST -> EARLIEST;
            case AT_INSTANT -> start.at().orElseThrow().toString();
        };
    }
}
