package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.DemoTarget;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code key=value} arguments a crash-test child JVM gets. The access key secret comes in the
 * environment variable {@link #SECRET_ENV}, so it is not on the command line.
 */
final class ChildArgs {

    static final String SECRET_ENV = "TSC_CRASH_ACCESS_KEY_SECRET";

    private final Map<String, String> values = new HashMap<>();

    ChildArgs(String[] args) {
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("Expected key=value, got '" + arg + "'");
            }
            values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
    }

    String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("Missing child argument '" + key + "'");
        }
        return value;
    }

    Path path(String key) {
        return Path.of(get(key));
    }

    int number(String key) {
        return Integer.parseInt(get(key));
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    DemoTarget target() {
        String secret = System.getenv(SECRET_ENV);
        if (secret == null) {
            throw new IllegalStateException("Set " + SECRET_ENV + " for the child JVM");
        }
        return new DemoTarget(get("endpoint"), get("instance"), get("accessKeyId"), secret);
    }
}
