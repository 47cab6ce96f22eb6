package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import java.util.List;

/**
 * One requested row mutation, as decoded from PutRow, UpdateRow, DeleteRow or a BatchWriteRow
 * entry.
 *
 * @param type PUT (replace the row), UPDATE (apply per-column operations) or DELETE
 * @param primaryKey the row's full primary key
 * @param cells for PUT the new columns (type PUT), for UPDATE the per-column operations, for DELETE
 *     none; a PUT cell without timestamp gets the commit time
 * @param condition what must hold before the write applies
 * @param returnPrimaryKey whether the response carries the row's primary key (ReturnType.RT_PK)
 * @param increments for UPDATE the atomic increments: each column with the INTEGER to add to its
 *     newest value (a missing column counts as 0)
 * @param returnColumns the incremented columns whose new values the response carries
 *     (ReturnType.RT_AFTER_MODIFY)
 */
public record RowWrite(
        StreamRecord.RecordType type,
        PrimaryKey primaryKey,
        List<RecordColumn> cells,
        WriteCondition condition,
        boolean returnPrimaryKey,
        List<Column> increments,
        List<String> returnColumns) {

    public RowWrite {
        cells = List.copyOf(cells);
        increments = List.copyOf(increments);
        returnColumns = List.copyOf(returnColumns);
    }

    /** A write without atomic increments. */
    public RowWrite(
            StreamRecord.RecordType type,
            PrimaryKey primaryKey,
            List<RecordColumn> cells,
            WriteCondition condition,
            boolean returnPrimaryKey) {
        this(type, primaryKey, cells, condition, returnPrimaryKey, List.of(), List.of());
    }

    /**
     * The write's cells with its increments as PUT cells of the amount: what the limits on names
     * and sizes, and the check against key column names, count.
     */
    static List<RecordColumn> withIncrements(List<RecordColumn> cells, List<Column> increments) {
        if (increments.isEmpty()) {
            return cells;
        }
        List<RecordColumn> all = new java.util.ArrayList<>(cells);
        increments.forEach(c -> all.add(new RecordColumn(c, RecordColumn.ColumnType.PUT)));
        return all;
    }

    /** This write with {@code key} (the key its auto-increment column was given). */
    RowWrite withKey(PrimaryKey key) {
        return new RowWrite(
                type, key, cells, condition, returnPrimaryKey, increments, returnColumns);
    }
}
