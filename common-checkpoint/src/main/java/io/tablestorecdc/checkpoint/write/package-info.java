/**
 * Writing rows to a Tablestore table, for both engines' {@code tablestore} sinks: the change model
 * ({@link io.tablestorecdc.checkpoint.write.RowWrite}), how changes of one key coalesce so that a
 * BatchWriteRow request never holds a key twice ({@link
 * io.tablestorecdc.checkpoint.write.KeyedChanges}), the buffering writer with its limits, retries
 * of failed rows and counters ({@link io.tablestorecdc.checkpoint.write.BufferedTableWriter}), the
 * translation of the {@code tablestore-cdc} source's rows ({@link
 * io.tablestorecdc.checkpoint.write.CdcChange}) and the one adapter that calls the SDK ({@link
 * io.tablestorecdc.checkpoint.write.SdkTableWriteClient}).
 *
 * <p>Nothing here is thread-safe: each engine's writer task owns one writer and calls it from one
 * thread. Writes carry no condition, so applying a change twice gives the same row: what makes a
 * replay after a failure converge to the same table.
 */
package io.tablestorecdc.checkpoint.write;
