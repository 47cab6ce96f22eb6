package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.IntStream;

/** Channel entries and snapshots of one tunnel, as the meta-table tests write and expect them. */
final class TestSnapshots {

    static final String TUNNEL = "tunnel-1";
    static final BatchToken T1 = BatchToken.parse("11111111-1111-4111-8111-111111111111");
    static final BatchToken T2 = BatchToken.parse("22222222-2222-4222-8222-222222222222");

    private TestSnapshots() {}

    static ChannelCheckpoint reading(String id, int n) {
        return new ChannelCheckpoint(
                id,
                ChannelType.STREAM,
                ChannelLifecycle.READING,
                ChannelPosition.at("token-" + id + "-" + n, n),
                7 + n,
                ChannelPosition.at("adopted-" + id, 2),
                new SequenceInfo(3, 1_234_567_890_123L + n, 9));
    }

    static BatchSnapshot snapshot(BatchToken token, ChannelCheckpoint... entries) {
        Map<String, ChannelCheckpoint> map = new LinkedHashMap<>();
        for (ChannelCheckpoint c : entries) {
            map.put(c.channelId(), c);
        }
        return new BatchSnapshot(TUNNEL, token, map);
    }

    static BatchSnapshot manyChannels(BatchToken token, int count) {
        return snapshot(
                token,
                IntStream.range(0, count)
                        .mapToObj(i -> reading(String.format("ch-%04d", i), i))
                        .toArray(ChannelCheckpoint[]::new));
    }
}
