/**
 * What a batch may read and what is pushed to the server after it: {@link
 * io.tablestorecdc.checkpoint.gate.ParentChildGate} decides which channels are read and why the
 * others are held; {@link io.tablestorecdc.checkpoint.gate.ServerCommitPlan} computes, from a
 * committed snapshot only, the positions and finishes to push.
 *
 * <p>Keeps invariants 3 (a channel's finish, which lets the server open its children, is pushed
 * only after the batch holding its last record is committed) and 4 (a channel is read only when it
 * is not finished, the server opened it to this client, and no base-data channel it waits for is
 * unfinished). The invariants are listed in docs/design.md.
 */
package io.tablestorecdc.checkpoint.gate;
