package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * When a bounded source is complete, so that the readers may be told there are no more splits: a
 * BaseData tunnel when every channel it lists is finished here; a source with an end position when
 * every channel has stopped there or finished (see {@link #stopAtComplete}). Stream tunnels without
 * an end never end.
 */
@Internal
final class SourceCompletion {

    private SourceCompletion() {}

    static boolean baseDataComplete(
            TunnelType type, SplitTracker splits, List<ServerChannel> listing) {
        return type == TunnelType.BASE_DATA
                && splits.finishedCount() > 0
                && splits.unassignedCount() == 0
                && splits.assignedCount() == 0
                && listing.stream().allMatch(c -> splits.isFinished(c.channelId()));
    }

    /**
     * With an end position: every channel read here stopped or finished; every finish reached the
     * server and a heartbeat and listing followed it ({@code finishRoundsListed}: the push rounds a
     * listing was fetched after), so the children those finishes opened (which may hold changes
     * from before the end) are known; and the listing shows no other channel that could still be
     * read: only known ones, {@code WAIT} children (of stopped parents: they open only after this
     * job's end) and {@code TERMINATED} ones.
     */
    static boolean stopAtComplete(
            SplitTracker splits,
            List<ServerChannel> listing,
            ServerPushLedger pushes,
            int finishRoundsListed) {
        if (splits.unassignedCount() > 0 || listing.isEmpty()) {
            return false;
        }
        boolean finishesOnServer =
                splits.finishedIds().stream().allMatch(id -> knownToServer(id, listing, pushes))
                        && !pushes.finishesOutstanding()
                        && finishRoundsListed == pushes.finishRounds();
        return splits.allAssignedStopped()
                && finishesOnServer
                && listing.stream()
                        .allMatch(
                                c ->
                                        splits.isKnown(c.channelId())
                                                || c.status() == ServerChannelStatus.WAIT
                                                || c.status() == ServerChannelStatus.TERMINATED);
    }

    private static boolean knownToServer(
            String id, List<ServerChannel> listing, ServerPushLedger pushes) {
        return pushes.finishAcknowledged(id)
                || listing.stream()
                        .noneMatch(
                                c ->
                                        c.channelId().equals(id)
                                                && c.status() != ServerChannelStatus.TERMINATED);
    }
}
