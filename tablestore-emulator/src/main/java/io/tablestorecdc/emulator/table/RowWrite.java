package io.tablestorecdc.emulator.table;

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
 */
public record RowWrite(
        StreamRecord.RecordType type,
        PrimaryKey primaryKey,
        List<RecordColumn> cells,
        WriteCondition condition,
        boolean returnPrimaryKey) {

    public RowWrite {
        cells = List.copyOf(cells);
    }
}
