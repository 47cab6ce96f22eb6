package io.tablestorecdc.flink.sink;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.Map;
import java.util.TreeMap;

/** A table with key (id STRING) as GetRange reads it, for comparing replicas. */
final class TableRows {

    private TableRows() {}

    /** The table as GetRange reads it: id to its columns. */
    static Map<String, Map<String, Object>> scan(SyncClient sync, String table) {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(bound(PrimaryKeyValue.INF_MIN));
        range.setExclusiveEndPrimaryKey(bound(PrimaryKeyValue.INF_MAX));
        range.setMaxVersions(1);
        Map<String, Map<String, Object>> state = new TreeMap<>();
        while (true) {
            GetRangeResponse page = sync.getRange(new GetRangeRequest(range));
            for (Row row : page.getRows()) {
                Map<String, Object> columns = new TreeMap<>();
                for (Column c : row.getColumns()) {
                    ColumnValue v = c.getValue();
                    columns.put(
                            c.getName(),
                            switch (v.getType()) {
                                case INTEGER -> v.asLong();
                                case STRING -> v.asString();
                                default -> v.toString();
                            });
                }
                state.put(
                        row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString(),
                        columns);
            }
            if (page.getNextStartPrimaryKey() == null) {
                return state;
            }
            range.setInclusiveStartPrimaryKey(page.getNextStartPrimaryKey());
        }
    }

    private static PrimaryKey bound(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn("id", value).build();
    }
}
