package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Row;
import java.util.Optional;

/**
 * The answer of a single-row read.
 *
 * @param row the row as returned (empty when missing, filtered out or holding none of the columns
 *     asked for)
 * @param bytesRead the size of what the read counted (see {@link CapacityUnits}); 0 for a missing
 *     row
 */
public record RowRead(Optional<Row> row, long bytesRead) {}
