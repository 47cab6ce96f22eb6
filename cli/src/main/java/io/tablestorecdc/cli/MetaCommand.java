package io.tablestorecdc.cli;

import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.TunnelRows;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code meta}: a consumer's rows in the meta table. */
@Command(
        name = "meta",
        mixinStandardHelpOptions = true,
        description = "Acts on a tunnel's rows in the meta table.",
        subcommands = MetaCommand.Purge.class)
final class MetaCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Name a meta command: purge.");
    }

    /** {@code meta purge --table T --tunnel N | --tunnel-id ID [--yes]}. */
    @Command(
            name = "purge",
            mixinStandardHelpOptions = true,
            description = {
                "Deletes every meta row of a tunnel (snapshots, batch log, adoptions, owner"
                        + " lease): after a dropped query or job, or a deleted tunnel. A dry run"
                        + " unless --yes: prints the rows and bytes it would delete. Refuses while"
                        + " a consumer holds the tunnel's lease."
            })
    static final class Purge extends ServiceCommand {

        @Option(names = "--table", description = "The data table (with --tunnel).")
        String table;

        @ArgGroup(multiplicity = "1")
        Target target;

        /** The tunnel by name (it must exist) or by id (it may be deleted). */
        static final class Target {
            @Option(names = "--tunnel", description = "The tunnel name.")
            String name;

            @Option(
                    names = "--tunnel-id",
                    description = "The tunnel id, for a tunnel that no longer exists.")
            String id;
        }

        @Option(names = "--yes", description = "Delete the rows (without it: a dry run).")
        boolean yes;

        @Option(names = "--json", description = "Print the tablestore-cdc.purge JSON document.")
        boolean json;

        Purge(Clock clock) {
            super(clock);
        }

        @Override
        void validate() {
            if (target.name != null && table == null) {
                throw new UsageException("--tunnel needs --table (or give --tunnel-id)");
            }
        }

        @Override
        int run(Service service, PrintWriter out) {
            String tunnelId =
                    target.id != null
                            ? target.id
                            : service.tunnels().describeTunnel(table, target.name).tunnelId();
            Instant now = clock.instant();
            Optional<OwnerLease> owner = service.meta().tunnel(tunnelId).owner();
            if (yes && owner.filter(l -> l.expiresAtMillis() > now.toEpochMilli()).isPresent()) {
                throw new CheckFailedException(
                        "Refused: "
                                + Owners.describe(owner, now)
                                + " holds tunnel "
                                + tunnelId
                                + ", and its rows are its committed progress. Stop that query or"
                                + " job first; if it is dead, run lease release, then purge.");
            }
            TunnelRows rows =
                    yes
                            ? service.meta().deleteTunnelRows(tunnelId)
                            : service.meta().tunnelRows(tunnelId);
            if (json) {
                out.println(Json.print(document(rows, service.metaTable())));
            } else {
                print(out, rows, service.metaTable());
            }
            return TablestoreCdcCli.OK;
        }

        private void print(PrintWriter out, TunnelRows rows, String metaTable) {
            out.println(
                    (yes ? "Deleted" : "Would delete")
                            + " "
                            + rows.rows()
                            + " rows ("
                            + rows.bytes()
                            + " bytes) of tunnel "
                            + rows.tunnelId()
                            + " from meta table "
                            + metaTable
                            + ":");
            out.println(
                    "  snapshots:     " + rows.snapshots() + " (" + rows.snapshotRows() + " rows)");
            out.println("  batch log:     " + rows.batchLogRows() + " rows");
            out.println("  adoptions:     " + rows.adoptionRows() + " rows");
            out.println("  owner, client, report: " + rows.ownerRows() + " rows");
            if (!yes) {
                out.println("Dry run: nothing was deleted. Add --yes to delete these rows.");
            }
        }

        private JsonObject document(TunnelRows rows, String metaTable) {
            JsonObject doc = Json.document("purge");
            doc.addProperty("meta_table", metaTable);
            doc.addProperty("tunnel_id", rows.tunnelId());
            doc.addProperty("deleted", yes);
            doc.addProperty("rows", rows.rows());
            doc.addProperty("bytes", rows.bytes());
            doc.addProperty("snapshots", rows.snapshots());
            doc.addProperty("snapshot_rows", rows.snapshotRows());
            doc.addProperty("batch_log_rows", rows.batchLogRows());
            doc.addProperty("adoption_rows", rows.adoptionRows());
            doc.addProperty("owner_rows", rows.ownerRows());
            return doc;
        }
    }
}
