package io.tablestorecdc.e2e.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only change log of a crash-test sink: every delivery as a block {@code B unit count},
 * one {@code C …} line per change, {@code E unit}.
 *
 * <p>A child JVM killed with SIGKILL can leave the last block torn (no {@code E} line, a cut-off
 * last line); {@link #read} reports such a block as incomplete instead of failing. Each run writes
 * its own file, so a torn tail is never followed by another run's lines.
 */
public final class ChangeLog {

    private ChangeLog() {}

    /** Appends one delivery; the bytes reach the OS before this returns (enough for SIGKILL). */
    public static void append(Path file, long unit, List<DeliveredChange> changes) {
        StringBuilder block = new StringBuilder();
        block.append("B\t").append(unit).append('\t').append(changes.size()).append('\n');
        changes.forEach(c -> block.append("C\t").append(c.toLine()).append('\n'));
        block.append("E\t").append(unit).append('\n');
        try {
            Files.write(
                    file,
                    block.toString().getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot append to the change log " + file, e);
        }
    }

    /** The deliveries in {@code file} (none if it does not exist yet), in the order logged. */
    public static List<Delivery> read(Path file, int run, int subtask) {
        if (!Files.exists(file)) {
            return List.of();
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the change log " + file, e);
        }
        // Only lines that end with a newline were written whole.
        String whole = text.substring(0, text.lastIndexOf('\n') + 1);
        return parse(whole.isEmpty() ? List.of() : List.of(whole.split("\n")), run, subtask);
    }

    private static List<Delivery> parse(List<String> lines, int run, int subtask) {
        List<Delivery> out = new ArrayList<>();
        long unit = -1;
        List<DeliveredChange> changes = null;
        for (String line : lines) {
            String[] head = line.split("\t", 2);
            switch (head[0]) {
                case "B" -> {
                    if (changes != null) {
                        throw new IllegalStateException("Block without end in a change log");
                    }
                    unit = Long.parseLong(head[1].split("\t")[0]);
                    changes = new ArrayList<>();
                }
                case "C" -> changes.add(DeliveredChange.parse(head[1]));
                case "E" -> {
                    out.add(new Delivery(run, subtask, unit, changes, true));
                    changes = null;
                }
                default -> throw new IllegalStateException("Bad change log line: " + line);
            }
        }
        if (changes != null) {
            out.add(new Delivery(run, subtask, unit, changes, false));
        }
        return out;
    }
}
