package io.tablestorecdc.e2e.orders;

import java.util.List;

/** Splits and merges a table's partitions (the embedded emulator can; a real instance cannot). */
public interface PartitionControl {

    /** Splits the partition holding {@code orderId} there; returns the children's ids. */
    List<String> split(String table, String orderId);

    /** Merges the partition starting at {@code orderId} with its left neighbour; returns the id. */
    String merge(String table, String orderId);
}
