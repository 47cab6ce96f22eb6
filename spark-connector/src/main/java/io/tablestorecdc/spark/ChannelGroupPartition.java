package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * The channels one task reads of one batch, one after another. Grouping channels bounds a batch's
 * tasks and meta-table requests (a task looks up and fills the end entries of all its channels
 * together); it never changes which records a batch holds, because every channel keeps its own
 * start, cap and recorded end.
 *
 * @param table the table the channels belong to
 * @param channels the channels' parts of the batch, in channel-id order, all with the same end
 *     token and tunnel client
 */
@Internal
public record ChannelGroupPartition(String table, List<ChannelInputPartition> channels)
        implements InputPartition {

    private static final long serialVersionUID = 1L;

    /** Partitions per core of default parallelism that the automatic grouping aims for. */
    static final int PARTITIONS_PER_CORE = 4;

    public ChannelGroupPartition {
        Objects.requireNonNull(table, "table");
        channels = List.copyOf(channels);
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("A channel group needs at least one channel");
        }
    }

    /**
     * How many channels one partition reads: the configured {@code max.channels.per.partition}, or
     * as few as keep the partitions within {@link #PARTITIONS_PER_CORE} × the default parallelism
     * (one channel per partition while the channels fit).
     */
    static int channelsPerPartition(int channels, OptionalInt configured, int parallelism) {
        if (configured.isPresent()) {
            return configured.getAsInt();
        }
        long target = (long) PARTITIONS_PER_CORE * Math.max(1, parallelism);
        return (int) Math.max(1, (channels + target - 1) / target);
    }

    /**
     * Splits {@code parts} (in channel-id order) into contiguous groups of at most {@code
     * perPartition} channels, as even in size as possible. Deterministic: the same parts always
     * give the same groups, and neighbouring channel ids share a group, so that a task finds their
     * meta rows with one range read.
     */
    static List<ChannelGroupPartition> group(
            String table, List<ChannelInputPartition> parts, int perPartition) {
        if (perPartition < 1) {
            throw new IllegalArgumentException("perPartition must be >= 1, was " + perPartition);
        }
        int groups = (parts.size() + perPartition - 1) / perPartition;
        List<ChannelGroupPartition> result = new ArrayList<>(groups);
        int from = 0;
        for (int g = 0; g < groups; g++) {
            int size = parts.size() / groups + (g < parts.size() % groups ? 1 : 0);
            result.add(new ChannelGroupPartition(table, parts.subList(from, from + size)));
            from += size;
        }
        return result;
    }

    /** The first channel's id and the group size; tokens are not shown. */
    @Override
    public String toString() {
        return "ChannelGroupPartition{"
                + table
                + ": "
                + channels.get(0).start()
                + " and "
                + (channels.size() - 1)
                + " more}";
    }
}
