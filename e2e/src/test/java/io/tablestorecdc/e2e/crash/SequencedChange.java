package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.orders.OrderChange;

/**
 * An order change with the rest of its sequence (epoch and row index), so the change log can name
 * it exactly. A Flink POJO: public fields, a no-argument constructor.
 */
public class SequencedChange {

    public OrderChange change;
    public int epoch;
    public int rowIndex;

    public SequencedChange() {}

    SequencedChange(OrderChange change, int epoch, int rowIndex) {
        this.change = change;
        this.epoch = epoch;
        this.rowIndex = rowIndex;
    }

    DeliveredChange delivered() {
        return DeliveredChange.of(change, epoch, rowIndex);
    }
}
