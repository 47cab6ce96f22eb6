package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;

/**
 * The committed meta snapshot belongs to a different tunnel id than the tunnel being read: the
 * tunnel was deleted and re-created under the same name, so none of its positions apply.
 */
@Internal
public final class ForeignSnapshotException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public ForeignSnapshotException(
            String snapshotTunnelId, String currentTunnelId, BatchToken token) {
        super(
                "The committed meta snapshot "
                        + token
                        + " belongs to tunnel id "
                        + snapshotTunnelId
                        + " but the tunnel being read has id "
                        + currentTunnelId
                        + ": the tunnel was re-created (or another tunnel is configured), so the"
                        + " stored positions do not apply to it. To start from the new tunnel's"
                        + " server checkpoints, use a new meta table (or delete the old tunnel's"
                        + " rows from this one) together with a fresh engine checkpoint location;"
                        + " to resume the old progress, configure the tunnel the snapshot was"
                        + " written for.");
    }
}
