package io.tablestorecdc.e2e.orders;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One change of one order, as both engines hand it to the replica.
 *
 * <p>A Flink POJO (public fields, no-argument constructor) so Flink serializes it without Kryo. An
 * attribute field is {@code null} when the change does not put that column; {@link #deleted} names
 * the columns an UPDATE removed.
 */
public class OrderChange {

    /** What happened to the row (the tunnel record's action). */
    public enum Action {
        PUT,
        UPDATE,
        DELETE
    }

    public String orderId;
    public Action action;

    /** The source table it was read from ({@code ""} when the reader did not say). */
    public String table = "";

    /** The tunnel channel it came from; base data channels start with {@code BaseData_}. */
    public String channel;

    /** Commit time in microseconds since the epoch; 0 for base data. */
    public long commitMicros;

    public String customer;
    public Long qty;
    public Double amount;
    public String status;
    public String note;
    public String[] deleted = new String[0];

    public OrderChange() {}

    /** A change with no columns yet; set the attribute fields that it puts. */
    public static OrderChange of(String orderId, Action action, String channel, long commitMicros) {
        OrderChange change = new OrderChange();
        change.orderId = orderId;
        change.action = action;
        change.channel = channel;
        change.commitMicros = commitMicros;
        return change;
    }

    /** Whether this change is part of the tunnel's base data (the initial full copy). */
    public boolean isBaseData() {
        return channel != null && channel.startsWith("BaseData_");
    }

    /** Sets the column {@code name} of {@link OrdersTable#ATTRIBUTES} to {@code value}. */
    public OrderChange put(String name, Object value) {
        switch (name) {
            case OrdersTable.CUSTOMER -> customer = (String) value;
            case OrdersTable.QTY -> qty = (Long) value;
            case OrdersTable.AMOUNT -> amount = (Double) value;
            case OrdersTable.STATUS -> status = (String) value;
            case OrdersTable.NOTE -> note = (String) value;
            default ->
                    throw new IllegalArgumentException(
                            "Column '"
                                    + name
                                    + "' is not an attribute of "
                                    + OrdersTable.ATTRIBUTES);
        }
        return this;
    }

    /** Records that the change removed {@code name}. */
    public OrderChange delete(String name) {
        String[] more = Arrays.copyOf(deleted, deleted.length + 1);
        more[deleted.length] = name;
        deleted = more;
        return this;
    }

    /** The columns this change puts, by name, in {@link OrdersTable#ATTRIBUTES} order. */
    public Map<String, Object> puts() {
        Map<String, Object> out = new LinkedHashMap<>();
        addIfSet(out, OrdersTable.CUSTOMER, customer);
        addIfSet(out, OrdersTable.QTY, qty);
        addIfSet(out, OrdersTable.AMOUNT, amount);
        addIfSet(out, OrdersTable.STATUS, status);
        addIfSet(out, OrdersTable.NOTE, note);
        return out;
    }

    /** The columns this change removes. */
    public List<String> deletes() {
        return List.of(deleted);
    }

    private static void addIfSet(Map<String, Object> out, String name, Object value) {
        if (value != null) {
            out.put(name, value);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OrderChange c
                && Objects.equals(orderId, c.orderId)
                && action == c.action
                && Objects.equals(channel, c.channel)
                && commitMicros == c.commitMicros
                && puts().equals(c.puts())
                && deletes().equals(c.deletes());
    }

    @Override
    public int hashCode() {
        return Objects.hash(orderId, action, channel, commitMicros, puts(), deletes());
    }

    @Override
    public String toString() {
        return action
                + " "
                + orderId
                + " "
                + puts()
                + (deleted.length == 0 ? "" : " -" + deletes());
    }
}
