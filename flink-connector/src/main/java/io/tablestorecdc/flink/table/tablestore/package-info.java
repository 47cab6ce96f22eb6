/**
 * The {@code 'connector' = 'tablestore'} SQL source: a Tablestore table as a dimension table in
 * lookup joins. Reads go through the core's {@link io.tablestorecdc.checkpoint.table.TableReader}.
 */
package io.tablestorecdc.flink.table.tablestore;
