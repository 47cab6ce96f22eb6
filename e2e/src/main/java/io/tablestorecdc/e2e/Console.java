package io.tablestorecdc.e2e;

import java.io.PrintStream;

/** The demo's output: one tagged line at a time, from any thread. */
public final class Console {

    private final PrintStream out;

    public Console(PrintStream out) {
        this.out = out;
    }

    /** Prints {@code text} behind a fixed-width {@code tag} ("demo", "spark", "flink"). */
    public synchronized void say(String tag, String text) {
        out.printf("%-6s %s%n", tag, text);
        out.flush();
    }
}
