package io.tablestorecdc.e2e.instance;

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
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Everything the suite's JVM logs or prints while open: every log event (the connectors at DEBUG,
 * the SDK, Spark and Flink at INFO, each with its stack trace) and what goes to standard output and
 * error. The suite checks that no secret is among it.
 */
final class LogWatch extends AbstractAppender implements AutoCloseable {

    private static final Map<String, Level> LEVELS =
            Map.of(
                    "io.tablestorecdc", Level.DEBUG,
                    "com.alicloud", Level.INFO,
                    "org.apache.spark", Level.INFO,
                    "org.apache.flink", Level.INFO);

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Map<String, Level> restoreLevels = new HashMap<>();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private LogWatch() {
        super("real-instance-watch-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
    }

    /** Starts watching. */
    static LogWatch begin() {
        LogWatch watch = new LogWatch();
        watch.watch();
        return watch;
    }

    private void watch() {
        start();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        LEVELS.forEach(
                (name, level) -> {
                    LoggerConfig existing = ctx.getConfiguration().getLoggers().get(name);
                    if (existing != null) {
                        restoreLevels.put(name, existing.getLevel());
                        existing.setLevel(level);
                        existing.addAppender(this, Level.ALL, null);
                    } else {
                        // Not additive: the watch sees it, the console is spared the flood.
                        LoggerConfig config = new LoggerConfig(name, level, false);
                        config.addAppender(this, Level.ALL, null);
                        ctx.getConfiguration().addLogger(name, config);
                    }
                });
        ctx.getConfiguration().getRootLogger().addAppender(this, Level.ALL, null);
        ctx.updateLoggers();
        System.setOut(new PrintStream(tee(out), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(tee(err), true, StandardCharsets.UTF_8));
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
        StringBuilder line = new StringBuilder(event.getMessage().getFormattedMessage());
        if (event.getThrown() != null) {
            StringWriter trace = new StringWriter();
            event.getThrown().printStackTrace(new PrintWriter(trace));
            line.append('\n').append(trace);
        }
        lines.add(line.toString());
    }

    /** The log events so far, then what was printed, as text. */
    List<String> lines() {
        List<String> all = new ArrayList<>(lines);
        synchronized (printed) {
            all.add(printed.toString(StandardCharsets.UTF_8));
        }
        return all;
    }

    /** How many log events were seen. */
    int events() {
        return lines.size();
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        for (String name : LEVELS.keySet()) {
            Level level = restoreLevels.get(name);
            if (level == null) {
                ctx.getConfiguration().removeLogger(name);
            } else {
                LoggerConfig config = ctx.getConfiguration().getLoggers().get(name);
                config.setLevel(level);
                config.removeAppender(getName());
            }
        }
        ctx.getConfiguration().getRootLogger().removeAppender(getName());
        ctx.updateLoggers();
        stop();
    }
}
