/**
 * Reading a data table directly, as a dimension table and as a bounded table: the only code besides
 * {@code meta} and {@code tunnel} that touches the Tablestore SDK.
 *
 * <p>{@link io.tablestorecdc.checkpoint.table.TableService} is the service boundary (one request
 * each: BatchGetRow, GetRange, ComputeSplitsBySize, DescribeTable), {@link
 * io.tablestorecdc.checkpoint.table.SdkTableService} its only SDK adapter. {@link
 * io.tablestorecdc.checkpoint.table.TableReader} holds the rules both engines share: at most 100
 * keys per BatchGetRow, per-row retries of transient errors only for the rows that failed, errors
 * that name the key and the service's code and message, key-prefix lookups and split reads paged
 * through GetRange.
 */
package io.tablestorecdc.checkpoint.table;
