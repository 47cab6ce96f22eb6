package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * What the merger does with a channel that is unfinished in the committed meta snapshot but no
 * longer listed by the tunnel server (option {@value #OPTION_KEY}).
 */
@PublicEvolving
public enum VanishedChannelPolicy {
    /** Stop with an error that names the channels (the default: unread data is never dropped). */
    FAIL,
    /** Keep the channel's entry in every snapshot, hold it, and report it as a warning. */
    WARN;

    /** The option key that selects the policy. */
    public static final String OPTION_KEY = "on.vanished.channel";

    /** The option value, in lower case: {@code fail}. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
