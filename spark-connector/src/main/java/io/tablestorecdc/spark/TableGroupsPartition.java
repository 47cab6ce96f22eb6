package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Channel groups of several tables that one task reads, one group after another: a query of many
 * small tables then runs about as many tasks per batch as a query of one table with as many
 * channels, instead of one task per table. Each group keeps its table, its channels' starts, caps
 * and recorded ends (its own meta lookup and fill), so packing groups never changes what a batch
 * holds.
 *
 * @param groups the groups, each of one table, in the batch's order
 */
@Internal
public record TableGroupsPartition(List<ChannelGroupPartition> groups) implements InputPartition {

    private static final long serialVersionUID = 1L;

    public TableGroupsPartition {
        groups = List.copyOf(groups);
        if (groups.size() < 2) {
            throw new IllegalArgumentException("Pack at least two groups, not " + groups.size());
        }
    }

    /**
     * Packs {@code groups} (in order) into partitions of at most {@code perPartition} channels: a
     * group alone where it does not fit with its neighbours, else several neighbouring groups
     * together. Deterministic: the same groups always give the same partitions.
     */
    static List<InputPartition> pack(List<ChannelGroupPartition> groups, int perPartition) {
        List<InputPartition> partitions = new ArrayList<>();
        List<ChannelGroupPartition> bin = new ArrayList<>();
        int channels = 0;
        for (ChannelGroupPartition group : groups) {
            int size = group.channels().size();
            if (!bin.isEmpty() && channels + size > perPartition) {
                partitions.add(of(bin));
                bin = new ArrayList<>();
                channels = 0;
            }
            bin.add(group);
            channels += size;
        }
        if (!bin.isEmpty()) {
            partitions.add(of(bin));
        }
        return partitions;
    }

    private static InputPartition of(List<ChannelGroupPartition> bin) {
        return bin.size() == 1 ? bin.get(0) : new TableGroupsPartition(bin);
    }

    /** The tables and the number of channels; tokens are not shown. */
    @Override
    public String toString() {
        int channels = groups.stream().mapToInt(g -> g.channels().size()).sum();
        return "TableGroupsPartition{"
                + groups.size()
                + " groups of tables "
                + groups.get(0).table()
                + " to "
                + groups.get(groups.size() - 1).table()
                + ", "
                + channels
                + " channels}";
    }
}
