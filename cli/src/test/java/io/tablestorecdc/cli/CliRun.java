package io.tablestorecdc.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;

/** One run of the command line in this JVM: its exit code, standard output and standard error. */
record CliRun(int exitCode, String out, String err) {

    /** Runs with an empty environment, so that a variable the machine sets changes nothing. */
    static CliRun run(Clock clock, String... args) {
        return runWithEnv(Map.of(), clock, args);
    }

    static CliRun runWithEnv(Map<String, String> env, Clock clock, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                TablestoreCdcCli.run(
                        args, new PrintWriter(out, true), new PrintWriter(err, true), clock, env);
        return new CliRun(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
