package io.tablestorecdc.spark;

import java.util.concurrent.ThreadFactory;

/** Threads of the source's own that never keep a driver or executor JVM alive. */
final class DaemonThreads {

    private DaemonThreads() {}

    /** A factory of daemon threads, each called {@code name}. */
    static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
