package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;

/**
 * Where reading of one channel resumes: a tunnel token plus the number of records after that token
 * that were already consumed.
 *
 * <p>A batch may stop in the middle of a server response, and tokens only mark response boundaries,
 * so a token alone cannot name the record after which a batch ended. Reading resumes by calling
 * {@code readRecords(token)} and discarding the first {@code skip} records, however the server
 * happens to split them into responses. A finished position has no token: the channel has delivered
 * its last record.
 */
@Internal
public final class ChannelPosition {

    /** The token the tunnel protocol uses for a fully consumed channel. */
    public static final String FINISHED_TOKEN = "finished";

    private static final ChannelPosition FINISHED = new ChannelPosition(FINISHED_TOKEN, 0L);

    private final String token;
    private final long skip;

    private ChannelPosition(String token, long skip) {
        this.token = token;
        this.skip = skip;
    }

    /** A position at a token, with {@code skip} records after it already consumed. */
    public static ChannelPosition at(String token, long skip) {
        Objects.requireNonNull(token, "token");
        if (token.isEmpty()) {
            throw new IllegalArgumentException("A channel position needs a non-empty tunnel token");
        }
        if (skip < 0) {
            throw new IllegalArgumentException("skip must be >= 0 but was " + skip);
        }
        return FINISHED_TOKEN.equals(token) ? finished() : new ChannelPosition(token, skip);
    }

    public static ChannelPosition at(String token) {
        return at(token, 0L);
    }

    public static ChannelPosition finished() {
        return FINISHED;
    }

    public boolean isFinished() {
        return this == FINISHED;
    }

    /** The token to read from; {@value #FINISHED_TOKEN} for a finished channel. */
    public String token() {
        return token;
    }

    /** Records after {@link #token()} that were already consumed. */
    public long skip() {
        return skip;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChannelPosition)) {
            return false;
        }
        ChannelPosition other = (ChannelPosition) o;
        return token.equals(other.token) && skip == other.skip;
    }

    @Override
    public int hashCode() {
        return Objects.hash(token, skip);
    }

    @Override
    public String toString() {
        return isFinished() ? "finished" : abbreviate(token) + "+" + skip;
    }

    private static String abbreviate(String token) {
        return token.length() <= 24
                ? token
                : token.substring(0, 10) + "…" + token.substring(token.length() - 10);
    }
}
