package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.emulator.table.RowChange;
import io.tablestorecdc.emulator.table.TableAccess;
import java.util.concurrent.atomic.AtomicLong;

/** Counts row writes and deletes to the meta table, as the emulator's table layer applies them. */
final class MetaWrites implements TableAccess.TableListener {

    private final String metaTable;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong deleted = new AtomicLong();

    MetaWrites(String metaTable) {
        this.metaTable = metaTable;
    }

    long written() {
        return written.get();
    }

    long deleted() {
        return deleted.get();
    }

    @Override
    public void onTableCreated(TableMeta meta) {}

    @Override
    public void onTableDeleted(String table) {}

    @Override
    public void onRowChange(RowChange change) {
        if (!change.table().equals(metaTable)) {
            return;
        }
        if (change.type() == StreamRecord.RecordType.DELETE) {
            deleted.incrementAndGet();
        } else {
            written.incrementAndGet();
        }
    }
}
