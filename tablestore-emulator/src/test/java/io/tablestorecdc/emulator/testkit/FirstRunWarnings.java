package io.tablestorecdc.emulator.testkit;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The warnings and errors of ours or of the SDK in an application's console output, for tests that
 * prove a correct first run (the tunnel and the meta table created on the way) is quiet: a newcomer
 * reads any such line as a failure. The engines' own start-up warnings are not ours.
 *
 * <p>Two kinds of line are not counted, both the trace of one race in the SDK's bundled HTTP client
 * (see {@link io.tablestorecdc.emulator.AppliedOnceWrites}): it checks, on the requesting thread
 * and after handing the request to its I/O thread, that the pooled connection is still open; when
 * the I/O thread has meanwhile completed the whole exchange and returned the connection to the pool
 * (the requesting thread was descheduled for the round trip, as happens on a busy machine), the
 * check fails and the request is reported failed with {@code ConnectionClosedException: Connection
 * closed} although the server answered it. The request is then sent again, by the SDK's retry or
 * ours:
 *
 * <ul>
 *   <li>the lines reporting that {@code ConnectionClosedException};
 *   <li>the SDK's line for a conditional write that failed its condition only on a retry ({@code
 *       RetriedCount:} 1 or more, {@code OTSConditionCheckFail}): its first attempt had landed. The
 *       meta table's writes read such a row back and go on (see {@code MetaTableClient}).
 * </ul>
 *
 * <p>Neither says anything about the first run, and nothing on our side can prevent them.
 */
public final class FirstRunWarnings {

    private static final String SPURIOUS_CLOSE = "ConnectionClosedException: Connection closed";

    private static final Pattern RETRY_OF_A_LANDED_WRITE =
            Pattern.compile(".*\\bRetriedCount:[1-9][0-9]*\\b.*\\bOTSConditionCheckFail\\b.*");

    /** The lines of {@code output} at WARN or ERROR that are ours or the SDK's, in order. */
    public static List<String> of(Stream<String> output) {
        return output.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                .filter(FirstRunWarnings::oursOrTheSdks)
                .filter(l -> !l.contains(SPURIOUS_CLOSE))
                .filter(l -> !RETRY_OF_A_LANDED_WRITE.matcher(l).matches())
                .toList();
    }

    /**
     * A log line of ours or of the SDK: our messages name the tunnel, the meta table or Tablestore;
     * the SDK logs through its {@code LogUtil}, with {@code OTS...} error codes.
     */
    static boolean oursOrTheSdks(String line) {
        String lower = line.toLowerCase(Locale.ROOT);
        return lower.contains("tablestore")
                || lower.contains("tunnel")
                || lower.contains("meta table")
                || line.contains("LogUtil")
                || line.matches(".*\\bOTS[A-Z].*");
    }

    private FirstRunWarnings() {}
}
