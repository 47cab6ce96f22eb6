package io.tablestorecdc.e2e.crash;

import java.lang.management.ManagementFactory;

/** A crash-test child's own lines on stdout, stamped with the JVM's uptime to read its timing. */
final class ChildOutput {

    private ChildOutput() {}

    static void say(String line) {
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        System.out.printf("[%7.2f s] %s%n", uptime / 1000.0, line);
    }
}
