package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.PurgeResult;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.util.Collection;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this job's committed positions to the meta table, one complete snapshot per batch token,
 * so that progress is visible and another engine can resume from it (DESIGN §6). Keeps the last
 * {@link #KEEP_LAST_BATCHES} snapshots (invariant 7). Called from the enumerator's worker thread.
 */
@Internal
final class MetaSnapshotWriter implements AutoCloseable {

    static final int KEEP_LAST_BATCHES = 3;

    private static final Logger LOG = LoggerFactory.getLogger(MetaSnapshotWriter.class);

    private final SdkMetaTableClient client;
    private final MetaStore store;

    private MetaSnapshotWriter(SdkMetaTableClient client) {
        this.client = client;
        this.store = new MetaStore(client);
    }

    /** Connects to (and creates, if missing) the meta table. */
    static MetaSnapshotWriter open(TablestoreEndpoint endpoint, String table) {
        MetaSnapshotWriter writer =
                new MetaSnapshotWriter(SdkMetaTableClient.connect(endpoint, table));
        writer.store.ensureTable();
        return writer;
    }

    /** Writes {@code snapshot} as batch {@code checkpointId} and purges old snapshots. */
    void write(BatchSnapshot snapshot, long checkpointId, Collection<ChannelCheckpoint> adoptions) {
        store.recordAdoptions(snapshot.tunnelId(), adoptions);
        store.seed(snapshot, checkpointId);
        PurgeResult purged = store.purge(snapshot.tunnelId(), KEEP_LAST_BATCHES);
        LOG.debug(
                "Wrote meta snapshot {} for checkpoint {} ({} channels); purge: {}",
                snapshot.token(),
                checkpointId,
                snapshot.channels().size(),
                purged);
    }

    @Override
    public void close() {
        client.close();
    }
}
