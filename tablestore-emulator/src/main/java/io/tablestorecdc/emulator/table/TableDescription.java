package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.TableMeta;
import java.util.Optional;

/**
 * What the emulator keeps about a table besides its rows.
 *
 * @param meta the table's name, primary-key schema and defined columns
 * @param timeToLiveSeconds the TTL the table was created with (-1 = forever; not enforced)
 * @param maxVersions the max versions the table was created with (the emulator keeps one)
 * @param streamExpirationHours the stream's expiration when the table was created with a stream
 * @param creationTimeMicros when the table was created
 */
public record TableDescription(
        TableMeta meta,
        int timeToLiveSeconds,
        int maxVersions,
        Optional<Integer> streamExpirationHours,
        long creationTimeMicros) {

    public String name() {
        return meta.getTableName();
    }
}
