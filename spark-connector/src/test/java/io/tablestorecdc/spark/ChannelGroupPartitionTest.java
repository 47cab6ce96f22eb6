package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ChannelGroupPartitionTest {

    static List<ChannelInputPartition> parts(int count) {
        return IntStream.range(0, count)
                .mapToObj(
                        i ->
                                new ChannelInputPartition(
                                        new TunnelClientId("tunnel-1", "client-1"),
                                        ChannelStart.of(
                                                ChannelCheckpoint.adopted(
                                                        String.format("ch-%04d", i),
                                                        ChannelType.STREAM,
                                                        ChannelPosition.at("tok-" + i, 0))),
                                        "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
                                        100))
                .toList();
    }

    @Test
    void smallChannelCountsKeepOneChannelPerPartition() {
        assertThat(ChannelGroupPartition.channelsPerPartition(8, OptionalInt.empty(), 2))
                .isEqualTo(1);
        assertThat(ChannelGroupPartition.channelsPerPartition(1, OptionalInt.empty(), 0))
                .isEqualTo(1);
    }

    @Test
    void largeChannelCountsGetAtMostFourPartitionsPerCore() {
        int per = ChannelGroupPartition.channelsPerPartition(1024, OptionalInt.empty(), 2);
        assertThat(per).isEqualTo(128);
        assertThat(ChannelGroupPartition.group("t", parts(1024), per)).hasSize(8);
        assertThat(ChannelGroupPartition.channelsPerPartition(1025, OptionalInt.empty(), 2))
                .isEqualTo(129);
    }

    @Test
    void theConfiguredCapWins() {
        assertThat(ChannelGroupPartition.channelsPerPartition(1024, OptionalInt.of(1), 2))
                .isEqualTo(1);
        assertThat(ChannelGroupPartition.channelsPerPartition(3, OptionalInt.of(50), 2))
                .isEqualTo(50);
    }

    @Test
    void groupsAreContiguousEvenAndCoverEveryChannelOnce() {
        List<ChannelInputPartition> parts = parts(10);

        List<ChannelGroupPartition> groups = ChannelGroupPartition.group("t", parts, 4);

        assertThat(groups).extracting(g -> g.channels().size()).containsExactly(4, 3, 3);
        assertThat(groups.stream().flatMap(g -> g.channels().stream()).toList()).isEqualTo(parts);
    }

    @Test
    void theSamePartsAlwaysGiveTheSameGroups() {
        assertThat(ChannelGroupPartition.group("t", parts(300), 7))
                .isEqualTo(ChannelGroupPartition.group("t", parts(300), 7));
        assertThat(ChannelGroupPartition.group("t", parts(0), 7)).isEmpty();
        assertThatThrownBy(() -> ChannelGroupPartition.group("t", parts(3), 0))
                .hasMessageContaining("perPartition");
    }

    @Test
    void aGroupSurvivesTheTripToAnExecutorAndShowsNoTokens() throws Exception {
        ChannelGroupPartition group = ChannelGroupPartition.group("t", parts(3), 3).get(0);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(group);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(group);
        }
        assertThat(group.toString()).contains("ch-0000").doesNotContain("tok-");
    }
}
