package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.orders.OrderChange;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One change as a crash-test sink received it, with what identifies it in the source table's change
 * stream.
 *
 * @param orderId the row's primary key
 * @param op PUT, UPDATE or DELETE
 * @param channel the tunnel channel it came from ({@code BaseData_…} for base data)
 * @param epoch the sequence epoch (0 for base data)
 * @param commitMicros the commit time in microseconds (0 for base data, which has none)
 * @param rowIndex the record's index in its partition's log (0 for base data)
 * @param columns the columns it set and removed, rendered deterministically
 */
public record DeliveredChange(
        String orderId,
        String op,
        String channel,
        int epoch,
        long commitMicros,
        int rowIndex,
        String columns) {

    private static final String SEP = "\t";

    /** The change with its sequence, as a sink hands it on. */
    public static DeliveredChange of(OrderChange change, int epoch, int rowIndex) {
        return new DeliveredChange(
                change.orderId,
                change.action.name(),
                change.channel,
                epoch,
                change.commitMicros,
                rowIndex,
                render(change.puts(), change.deletes()));
    }

    public boolean isBaseData() {
        return channel.startsWith("BaseData_");
    }

    /**
     * What names this change in the source's history: a base-data row appears once per tunnel
     * ({@code base:<key>}); a stream change is its key and commit time ({@code <key>@<micros>}),
     * unique because the server's commit times strictly increase.
     */
    public String identity() {
        return isBaseData() ? "base:" + orderId : orderId + "@" + commitMicros;
    }

    String toLine() {
        return String.join(
                SEP,
                orderId,
                op,
                channel,
                Integer.toString(epoch),
                Long.toString(commitMicros),
                Integer.toString(rowIndex),
                columns);
    }

    static DeliveredChange parse(String line) {
        String[] f = line.split(SEP, -1);
        if (f.length != 7) {
            throw new IllegalArgumentException("Not a change log record: '" + line + "'");
        }
        return new DeliveredChange(
                f[0],
                f[1],
                f[2],
                Integer.parseInt(f[3]),
                Long.parseLong(f[4]),
                Integer.parseInt(f[5]),
                f[6]);
    }

    private static String render(Map<String, Object> puts, List<String> deletes) {
        StringJoiner out = new StringJoiner(",");
        puts.forEach((k, v) -> out.add(k + "=" + v));
        deletes.forEach(d -> out.add("-" + d));
        return out.toString();
    }
}
