/**
 * The operators' command line {@code tablestore-cdc} ({@link
 * io.tablestorecdc.cli.TablestoreCdcCli}): one picocli command per subcommand, each a thin shell
 * over the core's own classes: the tunnel server through {@link
 * io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy}, the meta table through {@link
 * io.tablestorecdc.checkpoint.meta.MetaTable}, the lease rules of {@link
 * io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper}; it keeps no copy of the meta-table
 * format. Secrets come from the environment, a credentials file, the RAM role or a provider class,
 * never from an option value (invariant 9). The commands and their output are described in
 * docs/operations.md.
 */
package io.tablestorecdc.cli;
