/** The source's metrics beyond those Flink's reader base registers. */
package io.tablestorecdc.flink.source.metrics;
