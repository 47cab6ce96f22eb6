package io.tablestorecdc.e2e.crash;

import java.util.List;

/**
 * One hand-over of changes to a sink, as its change log recorded it.
 *
 * @param run which child JVM run delivered it (0, 1, …)
 * @param subtask the sink subtask that logged it (always 0 for Spark)
 * @param unit the Spark batch id, or the Flink checkpoint id the changes were written for
 * @param changes the changes, in the order the sink received them
 * @param complete false when the child was killed while the delivery was being logged
 */
public record Delivery(
        int run, int subtask, long unit, List<DeliveredChange> changes, boolean complete) {

    public Delivery {
        changes = List.copyOf(changes);
    }

    @Override
    public String toString() {
        return "run "
                + run
                + " subtask "
                + subtask
                + " unit "
                + unit
                + " ("
                + changes.size()
                + " changes"
                + (complete ? ")" : ", torn)");
    }
}
