/**
 * Reading channels, once for both engines: {@link io.tablestorecdc.checkpoint.read.ChannelReader}
 * reads one channel response by response (record by record, or a whole {@link
 * io.tablestorecdc.checkpoint.read.ChannelResponse} at a time), optionally up to a stop position,
 * with the one position arithmetic ({@link io.tablestorecdc.checkpoint.read.ResponsePositions});
 * {@link io.tablestorecdc.checkpoint.read.TunnelPages} is where it asks the server (a page read
 * ahead, requests counted); {@link io.tablestorecdc.checkpoint.read.ChannelBatchReader} reads one
 * channel's part of one batch, a first run up to its {@link
 * io.tablestorecdc.checkpoint.read.ChannelReadLimit} or a replay of a recorded run.
 *
 * <p>Keeps invariant 1: a replay delivers exactly the records of the first run, however the server
 * splits its responses, or fails ({@link io.tablestorecdc.checkpoint.read.ReplayDivergedException})
 * rather than lose or invent one. The invariants are listed in docs/design.md.
 */
package io.tablestorecdc.checkpoint.read;
