package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code reprocess --table T --from TIME --new-tunnel NAME [--with-base]}. */
@Command(
        name = "reprocess",
        mixinStandardHelpOptions = true,
        description = {
            "Creates a stream tunnel that starts at TIME (with --with-base: a base-and-stream"
                    + " tunnel, the table's data first) and prints the options that start a Spark"
                    + " query or a Flink job on it. The way out when a query or job cannot resume"
                    + " (a restore from older state refused, a tunnel past its retention)."
        })
final class ReprocessCommand extends ServiceCommand {

    @Mixin TargetOptions.Table table;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "TIME",
            converter = InstantConverter.class,
            description = "Where the stream starts: an ISO-8601 instant, 2026-05-01T00:00:00Z.")
    Instant from;

    @Option(
            names = "--new-tunnel",
            required = true,
            paramLabel = "NAME",
            description = "The new tunnel's name (it must not exist).")
    String newTunnel;

    @Option(
            names = "--with-base",
            description = "Read the table's current data first, then the stream from TIME.")
    boolean withBase;

    ReprocessCommand(Clock clock) {
        super(clock);
    }

    @Override
    void validate() {
        if (from.isAfter(clock.instant())) {
            throw new UsageException(
                    "--from " + from + " is in the future: the stream cannot start there");
        }
    }

    @Override
    int run(Service service, PrintWriter out) {
        TunnelType type = withBase ? TunnelType.BASE_AND_STREAM : TunnelType.STREAM;
        String id =
                service.tunnels().createTunnel(table.name, newTunnel, type, TunnelStart.at(from));
        out.println(
                "Created "
                        + (withBase ? "base-and-stream" : "stream")
                        + " tunnel '"
                        + newTunnel
                        + "' ("
                        + id
                        + ") of table '"
                        + table.name
                        + "', its stream starting at "
                        + from
                        + ".");
        out.println();
        out.println("Spark: start a new query with a new checkpoint location and");
        out.println("  .option(\"table.name\", \"" + table.name + "\")");
        out.println("  .option(\"tunnel.name\", \"" + newTunnel + "\")");
        out.println("  .option(\"tunnel.create\", \"none\")");
        out.println("Flink: start the job without its checkpoint or savepoint, with");
        out.println("  .setTableName(\"" + table.name + "\")");
        out.println("  .setTunnelName(\"" + newTunnel + "\")");
        out.println(
                "  (SQL: 'table.name' = '"
                        + table.name
                        + "', 'tunnel.name' = '"
                        + newTunnel
                        + "')");
        out.println(
                "Keep the other options (endpoint, instance, credentials, meta.table) as they"
                        + " were. Changes from "
                        + from
                        + " on are read again: the sink must tolerate them twice.");
        return TablestoreCdcCli.OK;
    }

    /** An ISO-8601 instant, with Z or an offset. */
    static final class InstantConverter implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String text) {
            try {
                return OffsetDateTime.parse(text.trim()).toInstant();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "'"
                                + text
                                + "' is not an instant: use ISO-8601 with a zone, such as"
                                + " 2026-05-01T00:00:00Z or 2026-05-01T08:00:00+08:00");
            }
        }
    }
}
