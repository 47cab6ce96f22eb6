package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import java.util.Optional;
import java.util.Set;

/**
 * A GetRange request.
 *
 * @param forward FORWARD (ascending, start below end) or BACKWARD (descending, start above end)
 * @param inclusiveStart the first key (INF_MIN / INF_MAX allowed per column)
 * @param exclusiveEnd the key the scan stops before
 * @param limit the most rows to return; 0 for the server's page size
 * @param columnsToGet the columns to return; empty for all
 * @param versions the versions of each column to return
 * @param filter rows that fail it (as read: with the versions picked) are skipped
 */
public record RangeQuery(
        boolean forward,
        PrimaryKey inclusiveStart,
        PrimaryKey exclusiveEnd,
        int limit,
        Set<String> columnsToGet,
        ReadVersions versions,
        Optional<RowFilter> filter) {

    public RangeQuery {
        columnsToGet = Set.copyOf(columnsToGet);
    }
}
