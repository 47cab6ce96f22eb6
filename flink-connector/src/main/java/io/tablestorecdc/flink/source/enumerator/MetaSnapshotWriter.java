package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.PurgeResult;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.Collection;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this job's committed positions to the meta table, one snapshot per batch token, so that
 * progress is visible and another engine can resume from it (docs/design.md, "Flink: one
 * checkpoint"). Keeps the last {@link #KEEP_LAST_BATCHES} snapshots (invariant 7). Called from the
 * enumerator's worker thread.
 */
@Internal
final class MetaSnapshotWriter {

    static final int KEEP_LAST_BATCHES = 3;

    private static final Logger LOG = LoggerFactory.getLogger(MetaSnapshotWriter.class);

    private final MetaStore store;
    private Optional<BatchToken> lastWritten = Optional.empty();

    /** Writes through {@code store}, whose table exists (its owner closes the client). */
    MetaSnapshotWriter(MetaStore store) {
        this.store = store;
    }

    /**
     * Writes {@code snapshot} as batch {@code checkpointId} and purges old snapshots. The snapshot
     * is a delta over the base of the one this writer wrote last, when that is cheaper (the first
     * write of a run is full); a failed write is not built on.
     */
    void write(BatchSnapshot snapshot, long checkpointId, Collection<ChannelCheckpoint> adoptions) {
        store.recordAdoptions(snapshot.tunnelId(), adoptions);
        store.write(snapshot, checkpointId, lastWritten);
        lastWritten = Optional.of(snapshot.token());
        PurgeResult purged = store.purge(snapshot.tunnelId(), KEEP_LAST_BATCHES);
        LOG.debug(
                "Wrote meta snapshot {} for checkpoint {} ({} channels); purge: {}",
                snapshot.token(),
                checkpointId,
                snapshot.channels().size(),
                purged);
    }
}
