package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
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

    /** Rows the meta table holds now (0 before it exists): what purging leaves behind. */
    long liveRows(TableAccess tables) {
        return tables.tableMeta(metaTable)
                .map(
                        meta -> {
                            PrimaryKeyBuilder min = PrimaryKeyBuilder.createPrimaryKeyBuilder();
                            PrimaryKeyBuilder max = PrimaryKeyBuilder.createPrimaryKeyBuilder();
                            for (PrimaryKeySchema column : meta.getPrimaryKeyList()) {
                                min.addPrimaryKeyColumn(column.getName(), PrimaryKeyValue.INF_MIN);
                                max.addPrimaryKeyColumn(column.getName(), PrimaryKeyValue.INF_MAX);
                            }
                            return (long)
                                    tables.snapshot(metaTable, min.build(), max.build()).size();
                        })
                .orElse(0L);
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
