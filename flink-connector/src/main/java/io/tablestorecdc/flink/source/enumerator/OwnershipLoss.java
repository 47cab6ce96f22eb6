package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.ExceptionUtils;

/**
 * A job whose owner lease was taken over fails without restarts. Another consumer owns the tunnel:
 * a restart would restore this job's state, take the tunnel back (two jobs restored from the same
 * checkpoint are one consumer to the lease) and fail the other job in turn, and so on.
 */
@Internal
final class OwnershipLoss {

    private OwnershipLoss() {}

    /** The loss of the lease in {@code error}'s causes, if any. */
    static Optional<OwnershipLostException> in(Throwable error) {
        return ExceptionUtils.findThrowable(error, OwnershipLostException.class);
    }

    /** Throws a failure Flink does not restart from when {@code error} is a lost lease. */
    static void rethrow(Throwable error) {
        Optional<OwnershipLostException> lost = in(error);
        if (lost.isPresent()) {
            throw new SuppressRestartsException(lost.get());
        }
    }
}
