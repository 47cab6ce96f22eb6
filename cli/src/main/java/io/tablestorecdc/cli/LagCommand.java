package io.tablestorecdc.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lag --table T --tunnel N [--max-lag 5m]}: per-channel lag, a threshold for alerting. With
 * several tables ({@code --table a,b} or {@code --table-pattern}), one section per table and the
 * maximum over them all.
 */
@Command(
        name = "lag",
        mixinStandardHelpOptions = true,
        description = {
            "Prints each channel's lag and the maximum; exits 1 when the maximum exceeds"
                    + " --max-lag (for cron and alerting).",
            "With several tables (--table a,b or --table-pattern), each table's channels, then the"
                    + " maximum over every table, which --max-lag checks."
        })
final class LagCommand extends ServiceCommand {

    /** How the result is printed. */
    enum Format {
        text,
        json,
        prometheus
    }

    @Mixin TargetOptions.Tables tables;

    @Mixin TargetOptions.Tunnel tunnel;

    @Option(
            names = "--max-lag",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Exit 1 when a channel lags more than this: 90s, 5m, 1h, 500ms, PT5M.")
    Duration maxLag;

    @Option(
            names = "--format",
            defaultValue = "text",
            description =
                    "text, json (the tablestore-cdc.lag document) or prometheus (the text"
                            + " exposition format, for node_exporter's textfile collector). Default:"
                            + " ${DEFAULT-VALUE}.")
    Format format;

    @Option(names = "--json", description = "Same as --format json.")
    boolean json;

    private TableSelection selection;

    LagCommand(Clock clock) {
        super(clock);
    }

    @Override
    void validate() {
        selection = tables.selection();
    }

    @Override
    int run(Service service, PrintWriter out) {
        List<String> names = tables.resolve(selection, service);
        SourceReport source = SourceReport.read(service, names, tunnel.name, clock.instant());
        Format chosen = json ? Format.json : format;
        if (selection.single()) {
            TunnelReport report = source.tables().get(0);
            switch (chosen) {
                case json ->
                        out.println(
                                Json.print(document(Json.document("lag"), names.get(0), report)));
                case prometheus -> prometheus(out, source);
                default -> text(out, report);
            }
            Optional<Duration> max = report.maxLag();
            if (exceeds(max)) {
                throw new CheckFailedException(
                        "Lag check failed: tunnel '"
                                + tunnel.name
                                + "' of table '"
                                + names.get(0)
                                + "' lags "
                                + Texts.duration(max.get())
                                + ", more than --max-lag "
                                + Texts.duration(maxLag)
                                + ". See docs/operations.md, \"Lag growing\".");
            }
            return TablestoreCdcCli.OK;
        }
        switch (chosen) {
            case json -> out.println(Json.print(document(source)));
            case prometheus -> prometheus(out, source);
            default -> text(out, source);
        }
        Optional<SourceReport.Lagging> max = source.maxLag();
        if (exceeds(max.map(SourceReport.Lagging::lag))) {
            throw new CheckFailedException(
                    "Lag check failed: tunnel '"
                            + tunnel.name
                            + "' of table '"
                            + max.get().table()
                            + "' lags "
                            + Texts.duration(max.get().lag())
                            + " (channel '"
                            + max.get().channel()
                            + "'), more than --max-lag "
                            + Texts.duration(maxLag)
                            + "; tables above it: "
                            + String.join(
                                    ", ",
                                    source.lagging(maxLag).stream()
                                            .map(
                                                    t ->
                                                            t.table()
                                                                    + " ("
                                                                    + Texts.duration(t.lag())
                                                                    + ")")
                                            .toList())
                            + ". See docs/operations.md, \"Lag growing\".");
        }
        return TablestoreCdcCli.OK;
    }

    private boolean exceeds(Optional<Duration> max) {
        return maxLag != null && max.isPresent() && max.get().compareTo(maxLag) > 0;
    }

    private static void text(PrintWriter out, TunnelReport report) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("CHANNEL", "STATUS", "LAG"));
        for (ChannelRow c : report.channels()) {
            rows.add(
                    List.of(
                            c.server().channelId(),
                            c.server().status().name(),
                            Texts.duration(c.lag())));
        }
        Texts.table(rows).forEach(out::println);
        out.println("max lag: " + Texts.duration(report.maxLag()));
    }

    private static void text(PrintWriter out, SourceReport source) {
        for (int i = 0; i < source.tables().size(); i++) {
            out.println(
                    "Tunnel '" + source.tunnel() + "' of table '" + source.names().get(i) + "'");
            text(out, source.tables().get(i));
            out.println();
        }
        out.println(source.summary());
    }

    /** The fields of one table's document, after {@code doc}'s own. */
    private JsonObject document(JsonObject doc, String table, TunnelReport report) {
        doc.addProperty("table", table);
        doc.addProperty("tunnel", tunnel.name);
        doc.addProperty("tunnel_id", report.tunnel().tunnelId());
        doc.addProperty("read_at", report.now().toString());
        JsonArray channels = new JsonArray();
        for (ChannelRow c : report.channels()) {
            JsonObject o = new JsonObject();
            o.addProperty("id", c.server().channelId());
            o.addProperty("status", c.server().status().name());
            o.add("lag_ms", Json.millis(c.lag()));
            channels.add(o);
        }
        doc.add("channels", channels);
        doc.add("max_lag_ms", Json.millis(report.maxLag()));
        doc.add("threshold_ms", Json.millis(Optional.ofNullable(maxLag)));
        doc.addProperty("exceeded", exceeds(report.maxLag()));
        return doc;
    }

    /** Several tables: one object per table (a table's fields), the maximum over them all. */
    private JsonObject document(SourceReport source) {
        JsonObject doc = Json.document("lag");
        Json.source(doc, source, selection);
        JsonArray array = new JsonArray();
        for (int i = 0; i < source.tables().size(); i++) {
            array.add(document(new JsonObject(), source.names().get(i), source.tables().get(i)));
        }
        doc.add("tables", array);
        Json.maxLag(doc, source);
        doc.add("threshold_ms", Json.millis(Optional.ofNullable(maxLag)));
        doc.addProperty("exceeded", exceeds(source.maxLag().map(SourceReport.Lagging::lag)));
        return doc;
    }

    /** Every table's series, each metric under one HELP and TYPE header. */
    private static void prometheus(PrintWriter out, SourceReport source) {
        out.println(
                "# HELP tablestore_cdc_channel_lag_seconds Time since the newest change read from"
                        + " the channel (0 when terminated).");
        out.println("# TYPE tablestore_cdc_channel_lag_seconds gauge");
        for (int i = 0; i < source.tables().size(); i++) {
            TunnelReport report = source.tables().get(i);
            String labels = labels(source, i);
            for (ChannelRow c : report.channels()) {
                c.lag()
                        .ifPresent(
                                lag ->
                                        out.println(
                                                "tablestore_cdc_channel_lag_seconds{"
                                                        + labels
                                                        + ",channel=\""
                                                        + label(c.server().channelId())
                                                        + "\"} "
                                                        + seconds(lag)));
            }
        }
        out.println(
                "# HELP tablestore_cdc_tunnel_max_lag_seconds The greatest lag of the tunnel's"
                        + " channels.");
        out.println("# TYPE tablestore_cdc_tunnel_max_lag_seconds gauge");
        for (int i = 0; i < source.tables().size(); i++) {
            TunnelReport report = source.tables().get(i);
            String labels = labels(source, i);
            report.maxLag()
                    .ifPresent(
                            lag ->
                                    out.println(
                                            "tablestore_cdc_tunnel_max_lag_seconds{"
                                                    + labels
                                                    + "} "
                                                    + seconds(lag)));
        }
        out.println("# HELP tablestore_cdc_tunnel_channels Channels the server lists, by status.");
        out.println("# TYPE tablestore_cdc_tunnel_channels gauge");
        for (int i = 0; i < source.tables().size(); i++) {
            TunnelReport report = source.tables().get(i);
            String labels = labels(source, i);
            report.channels().stream()
                    .map(c -> c.server().status().name())
                    .distinct()
                    .sorted()
                    .forEach(
                            status ->
                                    out.println(
                                            "tablestore_cdc_tunnel_channels{"
                                                    + labels
                                                    + ",status=\""
                                                    + status
                                                    + "\"} "
                                                    + report.channels().stream()
                                                            .filter(
                                                                    c ->
                                                                            c.server()
                                                                                    .status()
                                                                                    .name()
                                                                                    .equals(status))
                                                            .count()));
        }
    }

    private static String labels(SourceReport source, int table) {
        return "table=\""
                + label(source.names().get(table))
                + "\",tunnel=\""
                + label(source.tunnel())
                + "\"";
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3f", d.toMillis() / 1000.0);
    }

    /** A label value as the exposition format escapes it. */
    static String label(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** 90s, 5m, 1h, 2d, 500ms, or ISO-8601 (PT5M). */
    static final class DurationConverter implements ITypeConverter<Duration> {
        private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

        @Override
        public Duration convert(String text) {
            Matcher m = SHORT.matcher(text.trim().toLowerCase(Locale.ROOT));
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            }
            try {
                return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "'" + text + "' is not a duration: use 90s, 5m, 1h, 2d, 500ms or PT5M");
            }
        }
    }
}
