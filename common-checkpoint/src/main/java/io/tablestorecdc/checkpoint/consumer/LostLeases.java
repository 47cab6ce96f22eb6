package io.tablestorecdc.checkpoint.consumer;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Optional;

/**
 * The owner leases consumers in this JVM lost to another run, by acquisition ({@link
 * io.tablestorecdc.checkpoint.meta.OwnerLease#holder()}), so that an engine's automatic restart of
 * a consumer that lost its lease does not take the tunnel back.
 *
 * <p>Two runs started from the same checkpoint are one consumer to the lease, and the later one
 * takes the tunnel over at once: that is how a user replaces a stuck run without waiting for its
 * lease to expire. A Flink job restarted by its restart strategy is started from its own checkpoint
 * as well, so after the job lost its lease to a run started from that checkpoint, its restart would
 * take the tunnel back and stop the run that replaced it, which would be restarted in turn. The
 * restarted run names the acquisition its state was written under; one that was lost here is
 * refused. Acquisitions are random ids, so that different consumers in one JVM never match.
 */
final class LostLeases {

    /** Far more than one JVM's consumers lose; the oldest are forgotten first. */
    private static final int KEPT = 1024;

    private static final LinkedHashSet<String> HOLDERS = new LinkedHashSet<>();

    private LostLeases() {}

    /** Remembers that the acquisitions {@code holders} were lost to another run. */
    static synchronized void remember(Collection<String> holders) {
        for (String holder : holders) {
            HOLDERS.remove(holder);
            HOLDERS.add(holder);
        }
        while (HOLDERS.size() > KEPT) {
            HOLDERS.remove(HOLDERS.iterator().next());
        }
    }

    /** Whether state written under the acquisition {@code holder} belongs to a run that lost. */
    static synchronized boolean lost(Optional<String> holder) {
        return holder.isPresent() && HOLDERS.contains(holder.get());
    }
}
