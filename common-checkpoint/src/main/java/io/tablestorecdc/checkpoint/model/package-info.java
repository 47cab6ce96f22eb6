/**
 * The values every other package and both engines share: change records and their cells, channel
 * positions (a tunnel token plus the records already consumed after it), a channel's entry in a
 * batch snapshot, batch snapshots and the tokens that name them, the server's view of a channel,
 * endpoints and credentials. Immutable, with no SDK, Spark or Flink type.
 *
 * <p>Keeps invariant 6 in its shape ({@link io.tablestorecdc.checkpoint.model.BatchSnapshot} holds
 * every known channel, tombstones included) and invariant 9 ({@link
 * io.tablestorecdc.checkpoint.model.TablestoreCredentials} never shows the secret or the STS
 * token). The invariants are listed in docs/design.md.
 */
package io.tablestorecdc.checkpoint.model;
