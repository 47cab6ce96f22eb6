package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * What a consumer does when its state is older than the tunnel server's and some changes can no
 * longer be read (option {@value #OPTION_KEY}): a channel the state holds unfinished, or one it
 * adopted and never finished, that the server has since finished ({@code TERMINATED}). The server
 * never hands out a terminated channel again, so its changes after the state's position cannot be
 * read through this tunnel.
 */
@PublicEvolving
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

    /** The option value, in lower case: {@code fail}. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
