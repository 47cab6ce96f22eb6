/**
 * Reading one channel's part of one batch: {@link
 * io.tablestorecdc.checkpoint.read.ChannelBatchReader} reads a first run up to its {@link
 * io.tablestorecdc.checkpoint.read.ChannelReadLimit} and records where it ended, or replays a
 * recorded run.
 *
 * <p>Keeps invariant 1: a replay delivers exactly the records of the first run, however the server
 * splits its responses, or fails ({@link io.tablestorecdc.checkpoint.read.ReplayDivergedException})
 * rather than lose or invent one. The invariants are listed in docs/design.md.
 */
package io.tablestorecdc.checkpoint.read;
