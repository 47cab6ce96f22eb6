package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.Objects;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One channel's part of one batch: where it starts, the batch token whose snapshot receives its
 * end, and its record cap. Tasks receive these inside a {@link ChannelGroupPartition}. Holds only
 * serializable values; readers build their own SDK clients.
 *
 * @param client the driver's tunnel client, which executors read with
 * @param start the channel's entry in the start snapshot
 * @param endToken the batch token of the end snapshot (UUID string)
 * @param maxRecords the record cap of a first read ({@link TablestoreOffset#UNCAPPED} for none)
 */
@Internal
public record ChannelInputPartition(
        TunnelClientId client, ChannelStart start, String endToken, long maxRecords)
        implements InputPartition {

    private static final long serialVersionUID = 1L;

    public ChannelInputPartition {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(endToken, "endToken");
    }
}
