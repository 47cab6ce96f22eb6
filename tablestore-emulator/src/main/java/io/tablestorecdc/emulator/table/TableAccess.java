package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.TableMeta;
import java.util.List;
import java.util.Optional;

/** What the tunnel layer may ask of the table layer. */
public interface TableAccess {

    Optional<TableMeta> tableMeta(String table);

    /**
     * The current rows with {@code startInclusive <= key < endExclusive} in primary-key order (use
     * the INF_MIN / INF_MAX primary keys for open ends), each with the newest version of each of
     * its columns; a consistent snapshot.
     */
    List<Row> snapshot(String table, PrimaryKey startInclusive, PrimaryKey endExclusive);

    /**
     * Registers a listener. It is called for every acknowledged mutation while the table's write
     * lock is held, so changes of one key arrive in commit order; it must not call back into the
     * table layer.
     */
    void addListener(TableListener listener);

    /** Receives table lifecycle events and row changes. */
    interface TableListener {
        void onTableCreated(TableMeta meta);

        void onTableDeleted(String table);

        void onRowChange(RowChange change);
    }
}
