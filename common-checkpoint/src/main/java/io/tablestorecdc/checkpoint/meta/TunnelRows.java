package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * The rows one tunnel has in a meta table, by kind: what {@link MetaTable#deleteTunnelRows}
 * deletes.
 *
 * @param tunnelId the tunnel the rows belong to
 * @param snapshots batch snapshots the batch log lists
 * @param snapshotRows rows of those snapshots (manifests and entries)
 * @param batchLogRows rows of the batch log
 * @param adoptionRows rows recording where channels were first adopted
 * @param ownerRows the owner-lease row and the recorded tunnel client (0 to 2)
 * @param bytes the rows' approximate size: key and column names and values, UTF-8
 */
@Internal
public record TunnelRows(
        String tunnelId,
        int snapshots,
        long snapshotRows,
        long batchLogRows,
        long adoptionRows,
        long ownerRows,
        long bytes) {

    /** Every row counted. */
    public long rows() {
        return snapshotRows + batchLogRows + adoptionRows + ownerRows;
    }
}
