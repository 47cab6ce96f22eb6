/** Reads a bounded table scan's splits with paged GetRange and emits Flink rows. */
package io.tablestorecdc.flink.scan.reader;
