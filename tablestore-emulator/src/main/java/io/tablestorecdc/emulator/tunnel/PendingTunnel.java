package io.tablestorecdc.emulator.tunnel;

import java.util.List;

/**
 * A tunnel registered but not yet complete: the base-data channels whose snapshots must still be
 * taken (outside the service's lock).
 *
 * @param tunnelId the new tunnel's id
 * @param table the table the tunnel reads
 * @param baseChannels one per partition active at creation
 */
record PendingTunnel(String tunnelId, String table, List<BaseChannelSpec> baseChannels) {

    /** A base-data channel to create: its id, its partition and that partition's range. */
    record BaseChannelSpec(String channelId, String partitionId, KeyRange range) {}
}
