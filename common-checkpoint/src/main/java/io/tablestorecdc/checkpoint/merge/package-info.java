/**
 * Merging the last committed meta snapshot with the tunnel server's channel listing into the start
 * state of the next batch: {@link io.tablestorecdc.checkpoint.merge.CheckpointMerger}, a pure
 * function (the same inputs always give the same {@link
 * io.tablestorecdc.checkpoint.merge.MergeResult}, so planning a batch again is safe), with the
 * adoption history it consults and the cached listing it is given.
 *
 * <p>Keeps invariants 5 (the committed position wins over the server's checkpoint; a channel this
 * consumer adopted before restarts at its first adoption) and 6 (the merged entries hold every
 * known channel, tombstones included), and hands invariant 4 to the gate. The invariants are listed
 * in docs/design.md, with the merge rules.
 */
package io.tablestorecdc.checkpoint.merge;
