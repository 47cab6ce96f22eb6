/** The splits of a bounded table scan: a key range and how far it was read. */
package io.tablestorecdc.flink.scan.split;
