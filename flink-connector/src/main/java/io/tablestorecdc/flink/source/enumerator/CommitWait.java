package io.tablestorecdc.flink.source.enumerator;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;

/**
 * Tells when finished channels wait for a checkpoint that never begins. A finish reaches the server
 * only with a completed checkpoint, and the server opens a finished channel's children (and, in a
 * base-and-stream tunnel, the stream after the base data) only then: a job without checkpointing
 * reads the base data or a channel up to a split and then nothing more, with nothing failing. A
 * source cannot see the job's checkpoint settings, so the enumerator watches whether checkpoints
 * begin instead and, when finishes have waited a minute and none ever began, says once what to fix.
 * Checkpoints that begin and fail are Flink's to report.
 */
@Internal
final class CommitWait {

    /** How long finishes wait before the warning: longer than a usual checkpoint interval. */
    static final Duration DEFAULT_PATIENCE = Duration.ofMinutes(1);

    private final Duration patience;
    private final LongSupplier nanoClock;
    private long waitingSinceNanos;
    private boolean waiting;
    private boolean checkpointBegun;
    private boolean told;

    CommitWait(Duration patience, LongSupplier nanoClock) {
        this.patience = patience;
        this.nanoClock = nanoClock;
    }

    /** A checkpoint began (the enumerator's state is taken). */
    void checkpointBegun() {
        checkpointBegun = true;
    }

    /**
     * How many finishes wait for a completed checkpoint now; the warning, once, when some have
     * waited longer than the patience (since none waited) and no checkpoint has begun.
     */
    Optional<String> observe(int uncommittedFinishes, String tunnelName) {
        if (uncommittedFinishes == 0) {
            waiting = false;
            return Optional.empty();
        }
        long now = nanoClock.getAsLong();
        if (!waiting) {
            waiting = true;
            waitingSinceNanos = now;
            return Optional.empty();
        }
        long waited = now - waitingSinceNanos;
        if (told || checkpointBegun || waited < patience.toNanos()) {
            return Optional.empty();
        }
        told = true;
        return Optional.of(
                uncommittedFinishes
                        + " finished channel(s) of tunnel '"
                        + tunnelName
                        + "' have waited "
                        + Duration.ofNanos(waited).toSeconds()
                        + " s for a checkpoint, and no checkpoint has begun since this source"
                        + " started: checkpointing is probably disabled. Only a completed"
                        + " checkpoint commits a finish, and until then the server opens no"
                        + " channel after it (the children of a split or merge, the stream after"
                        + " the base data), so this source reads nothing more. Enable"
                        + " checkpointing: env.enableCheckpointing(10_000) in a DataStream"
                        + " program, execution.checkpointing.interval: 10s in the Flink"
                        + " configuration, or SET 'execution.checkpointing.interval' = '10s'; in"
                        + " the SQL Client.");
    }
}
