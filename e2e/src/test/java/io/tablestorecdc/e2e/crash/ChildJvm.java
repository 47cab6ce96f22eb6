package io.tablestorecdc.e2e.crash;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on the test's classpath, its output in a log file, killed with SIGKILL or frozen with
 * SIGSTOP.
 */
final class ChildJvm {

    /** The exit status of a process killed by SIGKILL (128 + 9). */
    static final int KILLED = 137;

    private final Process process;
    private final Path log;

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static ChildJvm start(Class<?> main, List<String> args, Map<String, String> env, Path log)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx1g");
        // Short-lived JVMs on two shared cores: no parallel GC threads, no C2 compilations.
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        // The --add-opens flags Spark needs on Java 17, as the test JVM got them.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(
                        a ->
                                a.startsWith("--add-opens")
                                        || a.startsWith("-XX:+IgnoreUnrecognized")
                                        || a.startsWith("-Djdk.reflect"))
                .forEach(cmd::add);
        // More flags for a child, e.g. a log4j configuration to read a failing run more closely.
        String extra = System.getProperty("crash.child.jvmArgs", "").trim();
        if (!extra.isEmpty()) {
            cmd.addAll(List.of(extra.split("\\s+")));
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.redirectOutput(log.toFile());
        builder.environment().putAll(env);
        return new ChildJvm(builder.start(), log);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    long pid() {
        return process.pid();
    }

    /** Kills it with SIGKILL and waits until it is gone; fails if it had already ended. */
    void kill() throws InterruptedException {
        if (!process.isAlive()) {
            throw new AssertionError(
                    "The child JVM ended by itself with status "
                            + process.exitValue()
                            + " before it was killed; see "
                            + log);
        }
        process.destroyForcibly(); // SIGKILL on Unix: no shutdown hooks, no cleanup
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("The child JVM " + pid() + " survived SIGKILL; see " + log);
        }
    }

    /**
     * Stops it with SIGSTOP, as a long GC pause, a suspended VM or a stopped container would: every
     * thread halts at once, timers included, and nothing in the process notices.
     */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@link #freeze frozen} child run again (SIGCONT), from exactly where it stopped. */
    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + name + " " + pid() + " failed; see " + log);
        }
    }

    /** Waits until it ends by itself; fails after {@code timeout}. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(
                    "The child JVM " + pid() + " still runs after " + timeout + "; see " + log);
        }
        return process.exitValue();
    }

    /** Kills it if it still runs (test teardown). */
    void killQuietly() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    int exitValue() {
        return process.exitValue();
    }
}
