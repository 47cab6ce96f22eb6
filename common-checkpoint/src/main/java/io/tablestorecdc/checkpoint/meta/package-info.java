/**
 * The meta table: {@link io.tablestorecdc.checkpoint.meta.MetaTable} and the per-tunnel {@link
 * io.tablestorecdc.checkpoint.meta.TunnelMeta} it hands out are the only code that reads or writes
 * it, {@link io.tablestorecdc.checkpoint.meta.SdkMetaTableClient} the only code that sends its
 * requests. Batch snapshots with their manifests, the readers' fills, the batch log and retention,
 * adoption records, the tunnel's owner lease. The rows are described in docs/meta-table.md.
 *
 * <p>Keeps invariants 2 (fills are put-if-absent: the first writer wins), 5 (adoption records,
 * written once and never purged), 6 (a snapshot reads back whole or fails), 7 (retention in bounded
 * purges) and 8 (the owner lease, changed only by compare-and-set), and stores what invariant 1
 * replays. The invariants are listed in docs/design.md.
 */
package io.tablestorecdc.checkpoint.meta;
