package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.settings.OptionValues;
import java.util.Locale;

/**
 * What a consumer does when its state is older than the tunnel server's and some changes can no
 * longer be read (option {@value #OPTION_KEY}): a channel the state holds unfinished, or one it
 * adopted and never finished, that the server has since finished ({@code TERMINATED}). The server
 * never hands out a terminated channel again, so its changes after the state's position cannot be
 * read through this tunnel.
 */
public enum ServerAheadPolicy {
    /** Stop before delivering anything, naming the channels and the ways out (the default). */
    FAIL,
    /**
     * Adopt the server's state for those channels (they become finished), log each once with what
     * is skipped, count them, and go on with every other guarantee kept.
     */
    SKIP;

    /** The option key that selects the policy. */
    public static final String OPTION_KEY = "on.server.ahead";

    /** Parses the option value {@code fail} or {@code skip} (case-insensitive). */
    public static ServerAheadPolicy fromOption(String value) {
        String normalized = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        return switch (normalized) {
            case "fail" -> FAIL;
            case "skip" -> SKIP;
            default ->
                    throw new IllegalArgumentException(
                            OptionValues.invalidValue(
                                    OPTION_KEY, value, "use fail (default) or skip"));
        };
    }
}
