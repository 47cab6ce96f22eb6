package io.tablestorecdc.spark;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The points of a micro-batch at which {@link CrashPointQuery} kills its own JVM with SIGKILL, on
 * the first batch that its run plans (not on a batch it re-runs from the offset log).
 */
enum CrashPoint {
    /** The source has planned the batch (its plan is in the meta table); Spark's offset log not. */
    BEFORE_OFFSET_LOG,
    /** The batch's read tasks have filled their end positions in the meta table; no sink write. */
    AFTER_FILLS,
    /** The sink has durably written the batch; Spark's commit log not. */
    AFTER_SINK_COMMIT,
    /** No crash: the run goes on until its trigger ends it. */
    NONE;

    /** The exit status of a JVM killed by SIGKILL, as {@link Process#exitValue()} reports it. */
    static final int KILLED = 128 + 9;

    private static volatile CrashPoint armed = NONE;

    /** Arms {@code point} for this JVM. */
    static void arm(CrashPoint point) {
        armed = point;
    }

    static boolean isArmed(CrashPoint point) {
        return armed == point;
    }

    /** Kills this JVM at once, as {@code kill -9} from outside would: no hooks, no clean-up. */
    static void killSelf(String where) {
        System.out.println("Crash point reached: " + where);
        System.out.flush();
        try {
            String pid = Long.toString(ProcessHandle.current().pid());
            new ProcessBuilder("kill", "-9", pid).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(10_000);
        } catch (IOException e) {
            System.out.println("kill -9 failed (" + e + "); halting instead");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(KILLED);
    }
}
