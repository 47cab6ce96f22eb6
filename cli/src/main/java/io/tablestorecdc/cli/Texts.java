package io.tablestorecdc.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** How values read at the prompt: instants to the second in UTC, durations as 1h2m3s, tables. */
final class Texts {

    private static final int SHOWN_TOKEN_CHARS = 16;

    private Texts() {}

    static String instant(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String instant(Optional<Instant> instant) {
        return instant.map(Texts::instant).orElse("-");
    }

    static String duration(Duration d) {
        long seconds = d.toSeconds();
        if (seconds == 0) {
            return d.isZero() ? "0s" : d.toMillis() + "ms";
        }
        StringBuilder out = new StringBuilder();
        long days = seconds / 86_400;
        long hours = seconds % 86_400 / 3_600;
        long minutes = seconds % 3_600 / 60;
        long rest = seconds % 60;
        if (days > 0) {
            out.append(days).append('d');
        }
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (minutes > 0) {
            out.append(minutes).append('m');
        }
        if (rest > 0 || out.length() == 0) {
            out.append(rest).append('s');
        }
        return out.toString();
    }

    static String duration(Optional<Duration> d) {
        return d.map(Texts::duration).orElse("-");
    }

    /** A tunnel token shortened for a table cell; {@code --json} prints it whole. */
    static String token(String token) {
        return token.length() <= SHOWN_TOKEN_CHARS
                ? token
                : token.substring(0, SHOWN_TOKEN_CHARS) + "...";
    }

    /** Rows as left-aligned columns two spaces apart, the first row the header. */
    static List<String> table(List<List<String>> rows) {
        int columns = rows.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String cell = row.get(i);
                line.append(cell);
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] - cell.length() + 2));
                }
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
