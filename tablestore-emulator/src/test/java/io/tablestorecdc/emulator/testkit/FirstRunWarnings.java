package io.tablestorecdc.emulator.testkit;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The warnings and errors of ours or of the SDK in an application's console output, for tests that
 * prove a correct first run (the tunnel and the meta table created on the way) is quiet: a newcomer
 * reads any such line as a failure. The engines' own start-up warnings are not ours.
 *
 * <p>One SDK line is not counted: a request reported failed with {@code ConnectionClosedException:
 * Connection closed} although the server answered it. The SDK's bundled HTTP client checks, on the
 * requesting thread and after handing the request to its I/O thread, that the pooled connection is
 * still open; when the I/O thread has meanwhile completed the whole exchange and returned the
 * connection to the pool (the requesting thread was descheduled for the round trip, as happens on a
 * busy machine), the check fails. The request is then sent again, by the SDK's retry or ours, and
 * succeeds. It says nothing about the first run, and nothing on our side can prevent it (see {@link
 * io.tablestorecdc.emulator.AppliedOnceWrites} for the race).
 */
public final class FirstRunWarnings {

    private static final String SPURIOUS_CLOSE = "ConnectionClosedException: Connection closed";

    /** The lines of {@code output} at WARN or ERROR that are ours or the SDK's, in order. */
    public static List<String> of(Stream<String> output) {
        return output.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                .filter(FirstRunWarnings::oursOrTheSdks)
                .filter(l -> !l.contains(SPURIOUS_CLOSE))
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
