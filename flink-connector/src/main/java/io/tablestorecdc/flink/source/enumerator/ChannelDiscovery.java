package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * What one discovery round saw, handed from the worker thread to the coordinator thread.
 *
 * @param listing every channel the server lists for the tunnel
 * @param openToClient ids of the channels the server has opened to this tunnel client
 * @param candidates channels open to this client that the enumerator did not know when the round
 *     started, at the server's checkpoint
 * @param finishPushesCovered how many pushes of finished channels a heartbeat had followed before
 *     the listing was fetched (the listing then shows the children those finishes opened)
 */
@Internal
record ChannelDiscovery(
        List<ServerChannel> listing,
        Set<String> openToClient,
        Map<String, ChannelSplit> candidates,
        int finishPushesCovered) {

    ChannelDiscovery {
        listing = List.copyOf(listing);
        openToClient = Set.copyOf(openToClient);
        candidates = Map.copyOf(candidates);
    }
}
