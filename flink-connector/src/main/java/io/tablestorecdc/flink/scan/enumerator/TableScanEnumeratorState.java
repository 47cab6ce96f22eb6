package io.tablestorecdc.flink.scan.enumerator;

import io.tablestorecdc.flink.scan.split.TableScanSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator's checkpoint: whether the scan's splits were planned, and those not yet assigned
 * (assigned ones live in the readers' state).
 *
 * @param planned whether ComputeSplitsBySize was asked; a restore does not ask again
 * @param unassigned the planned splits no reader holds, in key order
 */
@Internal
public record TableScanEnumeratorState(boolean planned, List<TableScanSplit> unassigned) {

    public TableScanEnumeratorState {
        unassigned = List.copyOf(unassigned);
        if (!planned && !unassigned.isEmpty()) {
            throw new IllegalArgumentException("Splits of a scan that was not planned");
        }
    }
}
