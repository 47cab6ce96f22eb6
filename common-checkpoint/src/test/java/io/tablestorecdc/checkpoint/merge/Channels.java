package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Short constructors for meta entries and server channels in table-driven tests. */
final class Channels {

    static final String TUNNEL = "tunnel-1";
    static final String CLIENT = "client-1";

    private Channels() {}

    static ChannelCheckpoint pending(String id, String token) {
        return ChannelCheckpoint.adopted(id, typeOf(id), ChannelPosition.at(token));
    }

    static ChannelCheckpoint reading(String id, String token) {
        return pending(id, id + "-t0")
                .advancedTo(ChannelPosition.at(token, 2), 5, SequenceInfo.NONE);
    }

    static ChannelCheckpoint finished(String id) {
        return pending(id, id + "-t0").advancedTo(ChannelPosition.finished(), 3, SequenceInfo.NONE);
    }

    static ServerChannel listed(String id, ServerChannelStatus status) {
        return ServerChannel.of(id, typeOf(id), status);
    }

    static ServerChannel listedFor(String id, String client) {
        return new ServerChannel(id, typeOf(id), ServerChannelStatus.OPEN, Optional.of(client), 0L);
    }

    static BatchSnapshot snapshot(ChannelCheckpoint... entries) {
        Map<String, ChannelCheckpoint> map = new LinkedHashMap<>();
        for (ChannelCheckpoint e : entries) {
            map.put(e.channelId(), e);
        }
        return new BatchSnapshot(TUNNEL, BatchToken.random(), map);
    }

    /** Ids starting with "base" are base-data channels, the rest stream channels. */
    static ChannelType typeOf(String id) {
        return id.startsWith("base") ? ChannelType.BASE_DATA : ChannelType.STREAM;
    }
}
