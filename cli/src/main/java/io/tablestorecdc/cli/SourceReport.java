package io.tablestorecdc.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The tunnels of a source of several tables (one tunnel of the same name per table), each read as
 * {@link TunnelReport} reads one, at one instant: what {@code describe} and {@code lag} print for a
 * list or a pattern.
 *
 * @param tunnel the tunnel name every table's tunnel has
 * @param names the tables, as the command named or resolved them, sorted
 * @param tables one report per table, in the order of {@code names}
 * @param now when it was read
 */
record SourceReport(String tunnel, List<String> names, List<TunnelReport> tables, Instant now) {

    /** Where the greatest lag is: a table's channel. */
    record Lagging(String table, String channel, Duration lag) {}

    static SourceReport read(Service service, List<String> tables, String tunnel, Instant now) {
        List<TunnelReport> reports = new ArrayList<>();
        for (String table : tables) {
            reports.add(TunnelReport.read(service, table, tunnel, now));
        }
        return new SourceReport(tunnel, List.copyOf(tables), List.copyOf(reports), now);
    }

    /** The channels of every table's tunnel. */
    int channels() {
        return tables.stream().mapToInt(t -> t.channels().size()).sum();
    }

    /**
     * The greatest channel lag over every table, and where it is (the first table, then the first
     * channel, by name, of those that lag as much); empty when no channel's lag is known.
     */
    Optional<Lagging> maxLag() {
        Lagging max = null;
        for (int i = 0; i < tables.size(); i++) {
            for (ChannelRow c : tables.get(i).channels()) {
                if (c.lag().isPresent()
                        && (max == null || c.lag().get().compareTo(max.lag()) > 0)) {
                    max = new Lagging(names.get(i), c.server().channelId(), c.lag().get());
                }
            }
        }
        return Optional.ofNullable(max);
    }

    /** The tables whose greatest lag exceeds {@code threshold}, by name, with that lag. */
    List<Lagging> lagging(Duration threshold) {
        List<Lagging> above = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            String table = names.get(i);
            tables.get(i).channels().stream()
                    .filter(c -> c.lag().filter(l -> l.compareTo(threshold) > 0).isPresent())
                    .max(Comparator.comparing(c -> c.lag().orElseThrow()))
                    .ifPresent(
                            c ->
                                    above.add(
                                            new Lagging(
                                                    table,
                                                    c.server().channelId(),
                                                    c.lag().orElseThrow())));
        }
        return above;
    }

    /** The line under the tables: how many tables and channels, and the greatest lag. */
    String summary() {
        Optional<Lagging> max = maxLag();
        return tables.size()
                + " tables, "
                + channels()
                + " channels; max lag: "
                + max.map(
                                m ->
                                        Texts.duration(m.lag())
                                                + " (table '"
                                                + m.table()
                                                + "', channel '"
                                                + m.channel()
                                                + "')")
                        .orElse("-");
    }
}
