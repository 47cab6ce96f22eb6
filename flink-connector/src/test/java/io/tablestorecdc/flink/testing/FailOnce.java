package io.tablestorecdc.flink.testing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * A map that fails its task once, on the first value that contains {@code marker}: arm it with
 * {@link #arm} before the job starts, and {@link #fired} tells whether it failed.
 */
public final class FailOnce implements MapFunction<String, String> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();

    private final String name;
    private final String marker;

    public FailOnce(String name, String marker) {
        this.name = name;
        this.marker = marker;
    }

    /** Arms the map of {@code name}: its next value that holds the marker fails the task. */
    public static void arm(String name) {
        ARMED.put(name, new AtomicBoolean(true));
    }

    /** Whether the map of {@code name} has failed its task. */
    public static boolean fired(String name) {
        return !ARMED.get(name).get();
    }

    @Override
    public String map(String value) {
        if (value.contains(marker) && ARMED.get(name).compareAndSet(true, false)) {
            throw new IllegalStateException("Injected task failure at " + value);
        }
        return value;
    }
}
