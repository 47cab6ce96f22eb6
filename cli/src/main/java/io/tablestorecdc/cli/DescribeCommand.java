package io.tablestorecdc.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code describe --table T --tunnel N}: one row per channel, the tunnel's state above. With
 * several tables ({@code --table a,b} or {@code --table-pattern}), one such section per table, then
 * a summary.
 */
@Command(
        name = "describe",
        mixinStandardHelpOptions = true,
        description = {
            "Shows a tunnel: its id, type, stage, owner lease and kept snapshots, then one row per"
                    + " channel: the server's status and checkpoint, the consumer's newest"
                    + " committed position from the meta table, and the lag.",
            "With several tables (--table a,b or --table-pattern), the tunnel of that name of each"
                    + " table, then a summary: tables, channels and the greatest lag."
        })
final class DescribeCommand extends ServiceCommand {

    @Mixin TargetOptions.Tables tables;

    @Mixin TargetOptions.Tunnel tunnel;

    @Option(names = "--json", description = "Print the tablestore-cdc.describe JSON document.")
    boolean json;

    private TableSelection selection;

    DescribeCommand(Clock clock) {
        super(clock);
    }

    @Override
    void validate() {
        selection = tables.selection();
    }

    @Override
    int run(Service service, PrintWriter out) {
        List<String> names = tables.resolve(selection, service);
        if (selection.single()) {
            TunnelReport report =
                    TunnelReport.read(service, names.get(0), tunnel.name, clock.instant());
            if (json) {
                out.println(Json.print(document(report, service.metaTable())));
            } else {
                print(out, report, service.metaTable());
            }
            return TablestoreCdcCli.OK;
        }
        SourceReport source = SourceReport.read(service, names, tunnel.name, clock.instant());
        if (json) {
            out.println(Json.print(document(source, selection, service.metaTable())));
        } else {
            for (TunnelReport report : source.tables()) {
                print(out, report, service.metaTable());
                out.println();
            }
            out.println(source.summary());
        }
        return TablestoreCdcCli.OK;
    }

    static void print(PrintWriter out, TunnelReport report, String metaTable) {
        TunnelDescription t = report.tunnel();
        out.println("Tunnel '" + t.tunnelName() + "' of table '" + t.tableName() + "'");
        out.println("  tunnel id:  " + t.tunnelId());
        out.println(
                "  type:       "
                        + t.type().name()
                        + ", stage "
                        + t.stage().map(Enum::name).orElse("-")
                        + (t.expired() ? ", EXPIRED (past the stream's retention)" : ""));
        out.println("  owner:      " + Owners.describe(report.owner(), report.now()));
        out.println("  meta table: " + metaTable + ", " + snapshots(report));
        out.println("  position:   " + newest(report.newest(), report.snapshots()));
        out.println();
        if (report.channels().isEmpty()) {
            out.println("The server lists no channels for this tunnel yet.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(
                List.of(
                        "CHANNEL",
                        "TYPE",
                        "STATUS",
                        "SERVER CHECKPOINT",
                        "STATE",
                        "ENGINE POSITION",
                        "LAST RECORD",
                        "LAG"));
        for (ChannelRow c : report.channels()) {
            rows.add(
                    List.of(
                            c.server().channelId(),
                            c.server().type().code(),
                            c.server().status().name(),
                            Texts.instant(c.serverCheckpointTime()),
                            c.engine().map(e -> e.lifecycle().name()).orElse("-"),
                            c.engine().map(DescribeCommand::position).orElse("-"),
                            Texts.instant(c.lastRecordTime()),
                            Texts.duration(c.lag())));
        }
        Texts.table(rows).forEach(out::println);
        out.println();
        out.println("max lag: " + Texts.duration(report.maxLag()));
    }

    private static String snapshots(TunnelReport report) {
        if (report.snapshots().isEmpty()) {
            return "no snapshots (no consumer has committed a batch of this tunnel)";
        }
        LoggedBatch oldest = report.oldestLogged().orElseThrow();
        LoggedBatch newest = report.newestLogged().orElseThrow();
        return report.snapshots().size()
                + " snapshots kept, oldest batch "
                + oldest.sequence()
                + " at "
                + Texts.instant(Instant.ofEpochMilli(oldest.createdAtMillis()))
                + ", newest batch "
                + newest.sequence()
                + " at "
                + Texts.instant(Instant.ofEpochMilli(newest.createdAtMillis()));
    }

    private static String newest(Optional<BatchSnapshot> newest, List<LoggedBatch> log) {
        if (newest.isEmpty()) {
            return log.isEmpty()
                    ? "none committed"
                    : "no complete snapshot (the meta rows are incomplete; see docs/meta-table.md)";
        }
        BatchSnapshot s = newest.get();
        long sequence =
                log.stream()
                        .filter(b -> b.token().equals(s.token()))
                        .mapToLong(LoggedBatch::sequence)
                        .findFirst()
                        .orElse(-1);
        return "newest complete snapshot is batch "
                + sequence
                + " (batch token "
                + s.token()
                + ", "
                + s.channels().size()
                + " channels)";
    }

    private static String position(ChannelCheckpoint c) {
        if (c.position().isFinished()) {
            return "finished";
        }
        String token = Texts.token(c.position().token());
        return c.position().skip() == 0 ? token : token + " +" + c.position().skip();
    }

    static JsonObject document(TunnelReport report, String metaTable) {
        return fields(Json.document("describe"), report, metaTable);
    }

    /**
     * The document of several tables: the selection, one object per table (the fields of the
     * one-table document), and the greatest lag over them all.
     */
    static JsonObject document(SourceReport source, TableSelection selection, String metaTable) {
        JsonObject doc = Json.document("describe");
        Json.source(doc, source, selection);
        doc.addProperty("meta_table", metaTable);
        JsonArray tables = new JsonArray();
        source.tables().forEach(r -> tables.add(fields(new JsonObject(), r, metaTable)));
        doc.add("tables", tables);
        Json.maxLag(doc, source);
        return doc;
    }

    private static JsonObject fields(JsonObject doc, TunnelReport report, String metaTable) {
        TunnelDescription t = report.tunnel();
        doc.addProperty("table", t.tableName());
        doc.addProperty("meta_table", metaTable);
        doc.addProperty("read_at", report.now().toString());
        JsonObject tunnel = new JsonObject();
        tunnel.addProperty("name", t.tunnelName());
        tunnel.addProperty("id", t.tunnelId());
        tunnel.addProperty("type", t.type().name());
        tunnel.add("stage", Json.text(t.stage().map(Enum::name)));
        tunnel.addProperty("expired", t.expired());
        doc.add("tunnel", tunnel);
        doc.add("owner", Owners.json(report.owner(), report.now()));
        doc.add("snapshots", snapshotsJson(report));
        JsonArray channels = new JsonArray();
        report.channels().forEach(c -> channels.add(channelJson(c)));
        doc.add("channels", channels);
        doc.add("max_lag_ms", Json.millis(report.maxLag()));
        return doc;
    }

    private static JsonObject snapshotsJson(TunnelReport report) {
        JsonObject s = new JsonObject();
        s.addProperty("count", report.snapshots().size());
        s.add("oldest", batchJson(report.oldestLogged()));
        s.add("newest", batchJson(report.newestLogged()));
        s.add("newest_complete_token", Json.text(report.newest().map(b -> b.token().toString())));
        return s;
    }

    private static JsonElement batchJson(Optional<LoggedBatch> batch) {
        if (batch.isEmpty()) {
            return JsonNull.INSTANCE;
        }
        JsonObject b = new JsonObject();
        b.addProperty("batch", batch.get().sequence());
        b.addProperty("token", batch.get().token().toString());
        b.addProperty("written_at", Instant.ofEpochMilli(batch.get().createdAtMillis()).toString());
        return b;
    }

    static JsonObject channelJson(ChannelRow c) {
        JsonObject o = new JsonObject();
        o.addProperty("id", c.server().channelId());
        o.addProperty("type", c.server().type().code());
        o.addProperty("status", c.server().status().name());
        o.add("client_id", Json.text(c.server().clientId()));
        o.add("server_checkpoint_time", Json.instant(c.serverCheckpointTime()));
        if (c.engine().isPresent()) {
            ChannelCheckpoint e = c.engine().get();
            JsonObject engine = new JsonObject();
            engine.addProperty("state", e.lifecycle().name());
            engine.addProperty("token", e.position().token());
            engine.addProperty("skip", e.position().skip());
            engine.addProperty("batch_records", e.batchRecords());
            engine.add("last_record_time", Json.instant(c.lastRecordTime()));
            o.add("engine", engine);
        } else {
            o.add("engine", JsonNull.INSTANCE);
        }
        o.addProperty("caught_up", c.caughtUp());
        o.add("lag_ms", Json.millis(c.lag()));
        return o;
    }
}
