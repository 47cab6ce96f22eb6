/**
 * The Tablestore Tunnel Service in the project's terms. {@link
 * io.tablestorecdc.checkpoint.tunnel.TunnelProxy} is the interface, {@link
 * io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy} the only class that calls the SDK's tunnel
 * client (transient retries, error kinds with advice, record conversion), and {@link
 * io.tablestorecdc.checkpoint.tunnel.TunnelSession} a consumer's one tunnel client: connect,
 * heartbeats, the channels the server assigned, server checkpoints.
 *
 * <p>Keeps invariants 1 (a token always names the same records, so a page read ahead is the page a
 * reader would have read), 3 (a channel is reported finished to the server only once its finish is
 * committed), 4 (only channels the server opened to this client are listed as readable) and 9
 * (secrets are masked in every message that leaves the adapter). The invariants are listed in
 * docs/design.md.
 */
package io.tablestorecdc.checkpoint.tunnel;
