package io.tablestorecdc.emulator.tunnel;

import io.tablestorecdc.emulator.table.RowChange;

/**
 * One change in a partition's stream log, with the sequence info its record carries.
 *
 * @param change the row change as the table layer acknowledged it
 * @param timeNanos the commit time in nanoseconds, the unit of tunnel offsets
 * @param epoch the partition's epoch (children have a higher epoch than their parents)
 * @param rowIndex the entry's index in its partition's log
 */
record LogEntry(RowChange change, long timeNanos, int epoch, int rowIndex) {}
