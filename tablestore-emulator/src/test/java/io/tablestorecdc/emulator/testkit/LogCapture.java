package io.tablestorecdc.emulator.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every log event of the test JVM while open, each with its stack trace, for tests that prove a
 * secret reaches no log line: the named loggers at the levels given (the root logger is {@code
 * ""}), every other logger at its configured level, and optionally what goes to standard output and
 * error. Needs log4j 2 as the test classpath's logging backend (Spark's, Flink's and the end-to-end
 * tests' are).
 *
 * <pre>{@code
 * try (LogCapture logs = LogCapture.start(Map.of("io.tablestorecdc", Level.DEBUG))) {
 *     ...
 *     assertThat(logs.text()).doesNotContain(secret);
 * }
 * }</pre>
 */
public final class LogCapture extends AbstractAppender implements AutoCloseable {

    private final Map<String, Level> levels;
    private final boolean standardStreams;
    // Appended to on every event (a DEBUG root logger sends many): a plain list under its own lock.
    private final List<String> lines = new ArrayList<>();
    private final Map<String, Level> restoreLevels = new HashMap<>();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private LogCapture(Map<String, Level> levels, boolean standardStreams) {
        super("log-capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
        this.levels = Map.copyOf(levels);
        this.standardStreams = standardStreams;
    }

    /** Captures log events, raising the named loggers to the given levels until closed. */
    public static LogCapture start(Map<String, Level> levels) {
        LogCapture capture = new LogCapture(levels, false);
        capture.attach();
        return capture;
    }

    /** Like {@link #start}, and also captures standard output and error (still printed). */
    public static LogCapture startWithStandardStreams(Map<String, Level> levels) {
        LogCapture capture = new LogCapture(levels, true);
        capture.attach();
        System.setOut(new PrintStream(capture.tee(capture.out), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(capture.tee(capture.err), true, StandardCharsets.UTF_8));
        return capture;
    }

    private void attach() {
        start();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        levels.forEach(
                (name, level) -> {
                    LoggerConfig existing = configured(config, name);
                    if (existing != null) {
                        restoreLevels.put(name, existing.getLevel());
                        existing.setLevel(level);
                        existing.addAppender(this, Level.ALL, null);
                    } else {
                        // Not additive: the capture sees it, the console is spared the flood.
                        LoggerConfig added = new LoggerConfig(name, level, false);
                        added.addAppender(this, Level.ALL, null);
                        config.addLogger(name, added);
                    }
                });
        if (!levels.containsKey("")) {
            config.getRootLogger().addAppender(this, Level.ALL, null);
        }
        ctx.updateLoggers();
    }

    private static LoggerConfig configured(Configuration config, String name) {
        return name.isEmpty() ? config.getRootLogger() : config.getLoggers().get(name);
    }

    private OutputStream tee(PrintStream console) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                console.write(b);
                synchronized (printed) {
                    printed.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                console.write(b, off, len);
                synchronized (printed) {
                    printed.write(b, off, len);
                }
            }
        };
    }

    @Override
    public void append(LogEvent event) {
        StringBuilder line =
                new StringBuilder(event.getLevel() + " " + event.getLoggerName() + " ")
                        .append(event.getMessage().getFormattedMessage());
        if (event.getThrown() != null) {
            StringWriter trace = new StringWriter();
            event.getThrown().printStackTrace(new PrintWriter(trace));
            line.append('\n').append(trace);
        }
        synchronized (lines) {
            lines.add(line.toString());
        }
    }

    /** The log events so far, then (when captured) what was printed, as text. */
    public List<String> lines() {
        List<String> all;
        synchronized (lines) {
            all = new ArrayList<>(lines);
        }
        if (standardStreams) {
            synchronized (printed) {
                all.add(printed.toString(StandardCharsets.UTF_8));
            }
        }
        return all;
    }

    /** Everything captured so far, one line after another. */
    public String text() {
        return String.join("\n", lines());
    }

    /** How many log events were seen. */
    public int events() {
        synchronized (lines) {
            return lines.size();
        }
    }

    @Override
    public void close() {
        if (standardStreams) {
            System.setOut(out);
            System.setErr(err);
        }
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        for (String name : levels.keySet()) {
            Level level = restoreLevels.get(name);
            if (level == null) {
                config.removeLogger(name);
            } else {
                LoggerConfig restored = configured(config, name);
                restored.setLevel(level);
                restored.removeAppender(getName());
            }
        }
        config.getRootLogger().removeAppender(getName());
        ctx.updateLoggers();
        stop();
    }
}
