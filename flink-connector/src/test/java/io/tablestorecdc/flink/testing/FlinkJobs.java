package io.tablestorecdc.flink.testing;

import org.apache.flink.core.execution.JobClient;

/** Ending the jobs the integration tests start. */
public final class FlinkJobs {

    private FlinkJobs() {}

    /**
     * Cancels the job (if it still runs) and waits for its end, so that its source closes while the
     * emulator still answers.
     */
    public static void cancelAndAwaitEnd(JobClient job) {
        job.cancel().exceptionally(e -> null).join(); // already finished, failed or cancelled
        job.getJobExecutionResult().handle((r, e) -> null).join();
    }
}
