/**
 * The few classes whose engine API differs between the default engine line (Flink 1.20, Spark 3.5)
 * and the next one (Flink 2.x, Spark 4, profile {@code next-engines}). Each class exists twice
 * under the same name, in {@code src/shim-default/java} and {@code src/shim-next/java}; the build
 * compiles the one of its line.
 */
package io.tablestorecdc.e2e.compat;
