package io.tablestorecdc.e2e.handover;

import io.tablestorecdc.e2e.orders.OrderChange;

/**
 * One change as a sink received it, with the server's sequence that identifies it and the engine's
 * unit of commit it arrived in.
 *
 * <p>A Flink POJO (public fields, no-argument constructor), so the Flink capture job needs no Kryo.
 */
public class SeenChange {

    public OrderChange change;

    /** The table the change was read from. */
    public String table = "";

    public int seqEpoch;
    public long seqMicros;
    public int seqRow;

    /**
     * Spark: the batch id. Flink: the id of the first checkpoint that holds the change (one more
     * than the last checkpoint the sink subtask had snapshotted when the change arrived).
     */
    public long unit;

    public SeenChange() {}

    public static SeenChange of(OrderChange change, int epoch, long micros, int row) {
        SeenChange seen = new SeenChange();
        seen.change = change;
        seen.seqEpoch = epoch;
        seen.seqMicros = micros;
        seen.seqRow = row;
        return seen;
    }

    /** The same change, arrived in {@code unit}. */
    public SeenChange in(long unit) {
        SeenChange copy = of(change, seqEpoch, seqMicros, seqRow).from(table);
        copy.unit = unit;
        return copy;
    }

    /** This change, read from {@code name}. */
    public SeenChange from(String name) {
        table = name;
        return this;
    }

    /** Identifies the change however often, and by whichever engine, it was read. */
    public Key key() {
        return new Key(table, change.orderId, seqEpoch, seqMicros, seqRow);
    }

    /** The channel id (a tunnel's own: split a log of several tables by table first). */
    public String channel() {
        return change.channel;
    }

    /**
     * A change's identity: the row and the server's sequence (epoch, commit time, row index), which
     * orders the changes of one row and is the same every time the change is read.
     */
    public record Key(String table, String orderId, int epoch, long micros, int row)
            implements Comparable<Key> {

        @Override
        public int compareTo(Key o) {
            int byTable = table.compareTo(o.table);
            if (byTable != 0) {
                return byTable;
            }
            int byEpoch = Integer.compare(epoch, o.epoch);
            if (byEpoch != 0) {
                return byEpoch;
            }
            int byTime = Long.compare(micros, o.micros);
            if (byTime != 0) {
                return byTime;
            }
            int byRow = Integer.compare(row, o.row);
            return byRow != 0 ? byRow : orderId.compareTo(o.orderId);
        }
    }

    @Override
    public String toString() {
        return key() + " " + change + " on " + table + "/" + channel() + " in " + unit;
    }
}
