package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

class ChannelInputPartitionTest {

    static final ChannelCheckpoint ENTRY =
            ChannelCheckpoint.adopted("p-1", ChannelType.STREAM, ChannelPosition.at("tok-a", 2))
                    .advancedTo(ChannelPosition.at("tok-b", 5), 17, new SequenceInfo(1, 99L, 4));

    @Test
    void aStartSurvivesTheTripToAnExecutorUnchanged() throws Exception {
        ChannelInputPartition partition =
                new ChannelInputPartition(
                        new TunnelClientId("tunnel-1", "client-1"),
                        ChannelStart.of(ENTRY),
                        "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
                        40);

        ChannelInputPartition copy = roundTrip(partition);

        assertThat(copy).isEqualTo(partition);
        assertThat(copy.start().toCheckpoint()).isEqualTo(ENTRY);
    }

    @Test
    void toStringShowsNoTokens() {
        assertThat(ChannelStart.of(ENTRY).toString()).doesNotContain("tok-b").contains("p-1");
    }

    static ChannelInputPartition roundTrip(ChannelInputPartition p) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(p);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (ChannelInputPartition) in.readObject();
        }
    }
}
