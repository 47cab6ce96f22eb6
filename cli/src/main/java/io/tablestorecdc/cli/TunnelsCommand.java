package io.tablestorecdc.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
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

/** {@code tunnels --table T}: the table's tunnels and the consumer that owns each. */
@Command(
        name = "tunnels",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the table's tunnels: name, id, type, stage, and the consumer that holds each in"
                    + " the meta table (engine, query/job id, lease expiry)."
        })
final class TunnelsCommand extends ServiceCommand {

    @Mixin TargetOptions.Table table;

    @Option(names = "--json", description = "Print the tablestore-cdc.tunnels JSON document.")
    boolean json;

    TunnelsCommand(Clock clock) {
        super(clock);
    }

    @Override
    int run(Service service, PrintWriter out) {
        Instant now = clock.instant();
        List<TunnelDescription> tunnels = service.tunnels().listTunnels(table.name);
        List<Optional<OwnerLease>> owners = new ArrayList<>();
        for (TunnelDescription t : tunnels) {
            owners.add(service.meta().tunnel(t.tunnelId()).owner());
        }
        if (json) {
            out.println(Json.print(document(tunnels, owners, now)));
        } else {
            print(out, tunnels, owners, now);
        }
        return TablestoreCdcCli.OK;
    }

    private void print(
            PrintWriter out,
            List<TunnelDescription> tunnels,
            List<Optional<OwnerLease>> owners,
            Instant now) {
        if (tunnels.isEmpty()) {
            out.println(
                    "Table '"
                            + table.name
                            + "' has no tunnels (check the table name and --instance if you"
                            + " expected some).");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("NAME", "ID", "TYPE", "STAGE", "OWNER", "ENGINE", "LEASE UNTIL", "LEASE"));
        for (int i = 0; i < tunnels.size(); i++) {
            TunnelDescription t = tunnels.get(i);
            Optional<OwnerLease> o = owners.get(i);
            rows.add(
                    List.of(
                            t.tunnelName(),
                            t.tunnelId(),
                            t.type().name(),
                            t.stage().map(Enum::name).orElse("-")
                                    + (t.expired() ? " (expired)" : ""),
                            o.map(OwnerLease::consumerId).orElse("-"),
                            o.map(Owners::engine).orElse("-"),
                            o.map(l -> Texts.instant(Instant.ofEpochMilli(l.expiresAtMillis())))
                                    .orElse("-"),
                            o.map(l -> Owners.state(l, now)).orElse("-")));
        }
        Texts.table(rows).forEach(out::println);
    }

    private JsonObject document(
            List<TunnelDescription> tunnels, List<Optional<OwnerLease>> owners, Instant now) {
        JsonObject doc = Json.document("tunnels");
        doc.addProperty("table", table.name);
        doc.addProperty("meta_table", connection.metaTable);
        JsonArray array = new JsonArray();
        for (int i = 0; i < tunnels.size(); i++) {
            TunnelDescription t = tunnels.get(i);
            JsonObject o = new JsonObject();
            o.addProperty("name", t.tunnelName());
            o.addProperty("id", t.tunnelId());
            o.addProperty("type", t.type().name());
            o.add("stage", Json.text(t.stage().map(Enum::name)));
            o.addProperty("expired", t.expired());
            o.add("owner", Owners.json(owners.get(i), now));
            array.add(o);
        }
        doc.add("tunnels", array);
        return doc;
    }
}
