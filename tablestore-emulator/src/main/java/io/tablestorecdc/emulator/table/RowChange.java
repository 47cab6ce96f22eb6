package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import java.util.List;

/**
 * One acknowledged row mutation, as the table layer hands it to the tunnel layer's change logs.
 *
 * @param table the table written
 * @param primaryKey the row's primary key
 * @param type PUT, UPDATE or DELETE
 * @param columns the attribute columns: all of the new row's for PUT, the touched ones with their
 *     per-column operation for UPDATE, none for DELETE
 * @param commitTimeMicros the server time of the write, microseconds since the epoch
 * @param before the values the row held before the write in the table's stream origin columns
 *     (those it had; empty when the table names none, the row did not exist or had none of them)
 */
public record RowChange(
        String table,
        PrimaryKey primaryKey,
        StreamRecord.RecordType type,
        List<RecordColumn> columns,
        long commitTimeMicros,
        List<Column> before) {

    public RowChange {
        columns = List.copyOf(columns);
        before = List.copyOf(before);
    }

    /** A change without a before-image. */
    public RowChange(
            String table,
            PrimaryKey primaryKey,
            StreamRecord.RecordType type,
            List<RecordColumn> columns,
            long commitTimeMicros) {
        this(table, primaryKey, type, columns, commitTimeMicros, List.of());
    }

    /** This change with {@code before} as its before-image. */
    public RowChange withBefore(List<Column> before) {
        return new RowChange(table, primaryKey, type, columns, commitTimeMicros, before);
    }
}
