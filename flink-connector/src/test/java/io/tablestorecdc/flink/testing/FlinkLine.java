package io.tablestorecdc.flink.testing;

import org.apache.flink.runtime.util.EnvironmentInformation;

/** The Flink line the tests run on: flink-connector runs them on 1.20, flink-connector-2 on 2.x. */
public final class FlinkLine {

    private FlinkLine() {}

    /** Whether the Flink on the classpath is a 2.x release. */
    public static boolean isFlink2() {
        String version = EnvironmentInformation.getVersion();
        if (version.startsWith("2.")) {
            return true;
        }
        if (version.startsWith("1.")) {
            return false;
        }
        throw new IllegalStateException(
                "Cannot tell the Flink version on the classpath: " + version);
    }
}
