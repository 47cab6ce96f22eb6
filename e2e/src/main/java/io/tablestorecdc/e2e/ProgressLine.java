package io.tablestorecdc.e2e;

import java.util.Optional;

/**
 * One line per Spark batch or Flink checkpoint: rows, channels, lag, and a bar while the base data
 * is being caught up.
 *
 * @param unit "batch" or "ckpt"
 * @param number the batch or checkpoint id
 * @param rows changes in this batch or checkpoint
 * @param total changes applied so far
 * @param channels the source's channel counts, when the engine reports them
 * @param lagMillis how far behind the newest applied change is, when known
 * @param baseRows base-data rows applied so far
 * @param baseTotal base-data rows in the table
 */
public record ProgressLine(
        String unit,
        long number,
        long rows,
        long total,
        Optional<Channels> channels,
        Optional<Long> lagMillis,
        long baseRows,
        long baseTotal) {

    private static final int BAR_WIDTH = 20;

    /** Channel counts: open (being read), waiting (held back), finished. */
    public record Channels(long open, long waiting, long finished) {}

    public String format() {
        return String.format(
                "%-5s %4d | %6d rows | total %7d | %s | lag %7s | %s",
                unit,
                number,
                rows,
                total,
                channels.map(
                                c ->
                                        String.format(
                                                "channels %2d open %2d waiting %2d finished",
                                                c.open(), c.waiting(), c.finished()))
                        .orElse("channels  -"),
                lagMillis.map(ProgressLine::seconds).orElse("-"),
                base());
    }

    private static String seconds(long millis) {
        return String.format("%.1f s", millis / 1000.0);
    }

    private String base() {
        if (baseTotal == 0 || baseRows >= baseTotal) {
            return "base data done";
        }
        int filled = (int) (BAR_WIDTH * baseRows / baseTotal);
        return "base ["
                + "#".repeat(filled)
                + ".".repeat(BAR_WIDTH - filled)
                + "] "
                + (100 * baseRows / baseTotal)
                + "%";
    }
}
