package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.settings.OptionValues;
import java.util.Locale;

/**
 * What the merger does with a channel that is unfinished in the committed meta snapshot but no
 * longer listed by the tunnel server (option {@value #OPTION_KEY}).
 */
public enum VanishedChannelPolicy {
    /** Stop with an error that names the channels (the default: unread data is never dropped). */
    FAIL,
    /** Keep the channel's entry in every snapshot, hold it, and report it as a warning. */
    WARN;

    /** The option key that selects the policy. */
    public static final String OPTION_KEY = "on.vanished.channel";

    /** Parses the option value {@code fail} or {@code warn} (case-insensitive). */
    public static VanishedChannelPolicy fromOption(String value) {
        String normalized = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        return switch (normalized) {
            case "fail" -> FAIL;
            case "warn" -> WARN;
            default ->
                    throw new IllegalArgumentException(
                            OptionValues.invalidValue(
                                    OPTION_KEY, value, "use fail (default) or warn"));
        };
    }
}
