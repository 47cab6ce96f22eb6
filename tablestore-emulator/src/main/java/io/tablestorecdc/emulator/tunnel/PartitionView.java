package io.tablestorecdc.emulator.tunnel;

import java.util.List;

/**
 * A read-only view of one partition for the admin surface.
 *
 * @param id the partition id (also its stream channels' id)
 * @param range its key range
 * @param active false once a split or merge ended it
 * @param parentIds the partitions it was split or merged from
 */
public record PartitionView(String id, KeyRange range, boolean active, List<String> parentIds) {}
