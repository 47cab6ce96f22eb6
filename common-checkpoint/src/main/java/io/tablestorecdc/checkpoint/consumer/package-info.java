/**
 * The consumer's life, once for both engines: {@link
 * io.tablestorecdc.checkpoint.consumer.TunnelConsumer} opens, fences, pushes and closes in one
 * order, from these parts: finding or creating the tunnel and refusing one that cannot be read
 * ({@link io.tablestorecdc.checkpoint.consumer.TunnelOpener}), the owner lease and the
 * predecessor's client ({@link io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper}, invariant
 * 8), and the way committed state reaches the tunnel server ({@link
 * io.tablestorecdc.checkpoint.consumer.ServerPushLedger}, invariant 3). An engine that commits
 * positions rather than meta snapshots (Flink) builds its committed state with {@link
 * io.tablestorecdc.checkpoint.consumer.CommittedPositions} and {@link
 * io.tablestorecdc.checkpoint.consumer.PendingFinishes}. Messages use the engine's words ({@link
 * io.tablestorecdc.checkpoint.model.Engine}).
 */
package io.tablestorecdc.checkpoint.consumer;
