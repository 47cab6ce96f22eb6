/**
 * The few classes whose Flink API differs between Flink 1.20 and Flink 2.x. Each class exists twice
 * under the same name, in {@code src/shim-1.20/java} (built by flink-connector) and in {@code
 * src/shim-2/java} (built by flink-connector-2); everything else is one source tree.
 */
package io.tablestorecdc.flink.compat;
