package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code lease}: the owner lease of a tunnel. */
@Command(
        name = "lease",
        mixinStandardHelpOptions = true,
        description = "Acts on the owner lease a query or job holds on its tunnel.",
        subcommands = LeaseCommand.Release.class)
final class LeaseCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Name a lease command: release.");
    }

    /** {@code lease release --table T --tunnel N --consumer C [--force]}. */
    @Command(
            name = "release",
            mixinStandardHelpOptions = true,
            description = {
                "Releases the lease of a consumer that is dead, printing what it held, so that"
                        + " another query or job may start on the tunnel at once. Refuses while"
                        + " the holder still renews the lease (it renews every 20 s) unless"
                        + " --force: a holder that still runs stops at its next renewal."
            })
    static final class Release extends ServiceCommand {

        @Mixin TargetOptions.Table table;

        @Mixin TargetOptions.Tunnel tunnel;

        @Option(
                names = "--consumer",
                required = true,
                description =
                        "The consumer id the lease names (see describe): a Spark query's"
                                + " checkpoint location, or flink-job-<uuid>.")
        String consumer;

        @Option(names = "--force", description = "Release even while the holder renews it.")
        boolean force;

        Release(Clock clock) {
            super(clock);
        }

        @Override
        int run(Service service, PrintWriter out) {
            String tunnelId = service.tunnels().describeTunnel(table.name, tunnel.name).tunnelId();
            TunnelMeta meta = service.meta().tunnel(tunnelId);
            Optional<OwnerLease> owner = meta.owner();
            if (owner.isEmpty()) {
                out.println(
                        "No consumer holds tunnel '"
                                + tunnel.name
                                + "' ("
                                + tunnelId
                                + "); nothing to"
                                + " release.");
                return TablestoreCdcCli.OK;
            }
            OwnerLease lease = owner.get();
            Instant now = clock.instant();
            requireNamedConsumer(lease);
            if (!force
                    && lease.expiresAtMillis() > now.toEpochMilli()
                    && OwnerLeaseKeeper.isRenewing(lease, now)) {
                throw stillRenewed(lease, now);
            }
            Optional<String> client = meta.lastTunnelClient();
            if (!meta.releaseOwnership(lease)) {
                throw new CheckFailedException(
                        "The lease of tunnel '"
                                + tunnel.name
                                + "' changed while it was being released (its holder renewed it,"
                                + " or another consumer took it over). Run describe and try again.");
            }
            out.println("Released the lease of tunnel '" + tunnel.name + "' (" + tunnelId + "):");
            out.println("  held by:       " + Owners.describe(owner, now));
            out.println("  lease epoch:   " + lease.epoch());
            out.println("  tunnel client: " + client.orElse("-"));
            out.println(
                    "A query or job may start on the tunnel now; the next owner shuts the tunnel"
                            + " client above down, so that the server hands its channels over.");
            return TablestoreCdcCli.OK;
        }

        private void requireNamedConsumer(OwnerLease lease) {
            if (!lease.consumerId().equals(consumer)) {
                throw new CheckFailedException(
                        "Tunnel '"
                                + tunnel.name
                                + "' is held by consumer '"
                                + lease.consumerId()
                                + "', not '"
                                + consumer
                                + "'; nothing was released. Check the consumer id with describe.");
            }
        }

        private CheckFailedException stillRenewed(OwnerLease lease, Instant now) {
            Duration ago = Duration.between(OwnerLeaseKeeper.lastRenewal(lease), now);
            return new CheckFailedException(
                    "Refused: consumer '"
                            + lease.consumerId()
                            + "' renewed its lease of tunnel '"
                            + tunnel.name
                            + "' "
                            + Texts.duration(ago.isNegative() ? Duration.ZERO : ago)
                            + " ago, so it is still running. Stop that query or job (a clean stop"
                            + " releases the lease itself); if you are sure it is dead, run again"
                            + " after "
                            + Texts.duration(OwnerLeaseKeeper.RENEW_EVERY.multipliedBy(2))
                            + " without a renewal, or add --force.");
        }
    }
}
