package io.tablestorecdc.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
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

/** {@code lag --table T --tunnel N [--max-lag 5m]}: per-channel lag, a threshold for alerting. */
@Command(
        name = "lag",
        mixinStandardHelpOptions = true,
        description = {
            "Prints each channel's lag and the maximum; exits 1 when the maximum exceeds"
                    + " --max-lag (for cron and alerting)."
        })
final class LagCommand extends ServiceCommand {

    /** How the result is printed. */
    enum Format {
        text,
        json,
        prometheus
    }

    @Mixin TargetOptions.Table table;

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

    LagCommand(Clock clock) {
        super(clock);
    }

    @Override
    int run(Service service, PrintWriter out) {
        TunnelReport report = TunnelReport.read(service, table.name, tunnel.name, clock.instant());
        Format chosen = json ? Format.json : format;
        switch (chosen) {
            case json -> out.println(Json.print(document(report)));
            case prometheus -> prometheus(out, report);
            default -> text(out, report);
        }
        Optional<Duration> max = report.maxLag();
        if (maxLag != null && max.isPresent() && max.get().compareTo(maxLag) > 0) {
            throw new CheckFailedException(
                    "Lag check failed: tunnel '"
                            + tunnel.name
                            + "' of table '"
                            + table.name
                            + "' lags "
                            + Texts.duration(max.get())
                            + ", more than --max-lag "
                            + Texts.duration(maxLag)
                            + ". See docs/operations.md, \"Lag growing\".");
        }
        return TablestoreCdcCli.OK;
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

    private JsonObject document(TunnelReport report) {
        JsonObject doc = Json.document("lag");
        doc.addProperty("table", table.name);
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
        doc.addProperty(
                "exceeded",
                maxLag != null && report.maxLag().filter(m -> m.compareTo(maxLag) > 0).isPresent());
        return doc;
    }

    private void prometheus(PrintWriter out, TunnelReport report) {
        String labels = "table=\"" + label(table.name) + "\",tunnel=\"" + label(tunnel.name) + "\"";
        out.println(
                "# HELP tablestore_cdc_channel_lag_seconds Time since the newest change read from"
                        + " the channel (0 when terminated).");
        out.println("# TYPE tablestore_cdc_channel_lag_seconds gauge");
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
        out.println(
                "# HELP tablestore_cdc_tunnel_max_lag_seconds The greatest lag of the tunnel's"
                        + " channels.");
        out.println("# TYPE tablestore_cdc_tunnel_max_lag_seconds gauge");
        report.maxLag()
                .ifPresent(
                        lag ->
                                out.println(
                                        "tablestore_cdc_tunnel_max_lag_seconds{"
                                                + labels
                                                + "} "
                                                + seconds(lag)));
        out.println("# HELP tablestore_cdc_tunnel_channels Channels the server lists, by status.");
        out.println("# TYPE tablestore_cdc_tunnel_channels gauge");
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
