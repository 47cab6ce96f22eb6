package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;
import org.junit.jupiter.api.Test;

class TableGroupsPartitionTest {

    private static ChannelGroupPartition group(String table, int channels) {
        List<ChannelInputPartition> parts = new ArrayList<>();
        for (int c = 0; c < channels; c++) {
            parts.add(
                    new ChannelInputPartition(
                            new TunnelClientId("tunnel-" + table, "client"),
                            ChannelStart.of(
                                    ChannelCheckpoint.adopted(
                                            "p-" + c, ChannelType.STREAM, ChannelPosition.at("t"))),
                            "00000000-0000-0000-0000-000000000001",
                            10));
        }
        return new ChannelGroupPartition(table, parts);
    }

    @Test
    void smallGroupsOfSeveralTablesShareAPartitionUpToTheChannelLimit() {
        List<ChannelGroupPartition> groups = new ArrayList<>();
        for (int t = 0; t < 10; t++) {
            groups.add(group("t" + t, 4));
        }

        List<InputPartition> packed = TableGroupsPartition.pack(groups, 12);

        assertThat(packed).hasSize(4);
        assertThat(packed.subList(0, 3))
                .allSatisfy(
                        p ->
                                assertThat(((TableGroupsPartition) p).groups())
                                        .extracting(g -> g.channels().size())
                                        .containsExactly(4, 4, 4));
        assertThat(((TableGroupsPartition) packed.get(0)).groups())
                .extracting(ChannelGroupPartition::table)
                .containsExactly("t0", "t1", "t2");
        assertThat(packed.get(3)).as("a group alone is its own partition").isEqualTo(groups.get(9));
    }

    @Test
    void aGroupThatFillsAPartitionStaysAloneAndPackingIsDeterministic() {
        List<ChannelGroupPartition> groups =
                List.of(group("a", 12), group("b", 1), group("c", 12), group("d", 1));

        List<InputPartition> packed = TableGroupsPartition.pack(groups, 12);

        assertThat(packed)
                .containsExactly(groups.get(0), groups.get(1), groups.get(2), groups.get(3));
        assertThat(TableGroupsPartition.pack(groups, 13))
                .containsExactly(
                        new TableGroupsPartition(List.of(groups.get(0), groups.get(1))),
                        new TableGroupsPartition(List.of(groups.get(2), groups.get(3))));
        assertThatThrownBy(() -> new TableGroupsPartition(List.of(groups.get(0))))
                .hasMessageContaining("at least two groups");
    }
}
