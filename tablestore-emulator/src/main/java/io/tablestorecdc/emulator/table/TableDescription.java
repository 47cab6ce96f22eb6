package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.TableMeta;
import java.util.List;
import java.util.Optional;

/**
 * What the emulator keeps about a table besides its rows.
 *
 * @param meta the table's name, primary-key schema and defined columns
 * @param timeToLiveSeconds the table's TTL (-1 = forever; not enforced)
 * @param maxVersions how many versions of each attribute column the table keeps
 * @param streamExpirationHours the stream's expiration when the table was created with a stream
 * @param creationTimeMicros when the table was created
 * @param streamOriginColumns the attribute columns whose values before a change the stream records
 *     carry (the stream specification's origin columns; empty for none)
 * @param shardSplits where the table's partitions start, as CreateTable's split points gave them
 *     (DescribeTable reports them; empty for none)
 */
public record TableDescription(
        TableMeta meta,
        int timeToLiveSeconds,
        int maxVersions,
        Optional<Integer> streamExpirationHours,
        long creationTimeMicros,
        List<String> streamOriginColumns,
        List<PrimaryKey> shardSplits) {

    public TableDescription {
        streamOriginColumns = List.copyOf(streamOriginColumns);
        shardSplits = List.copyOf(shardSplits);
    }

    /** A table without split points. */
    public TableDescription(
            TableMeta meta,
            int timeToLiveSeconds,
            int maxVersions,
            Optional<Integer> streamExpirationHours,
            long creationTimeMicros,
            List<String> streamOriginColumns) {
        this(
                meta,
                timeToLiveSeconds,
                maxVersions,
                streamExpirationHours,
                creationTimeMicros,
                streamOriginColumns,
                List.of());
    }

    /** A table whose stream, if any, carries no origin columns. */
    public TableDescription(
            TableMeta meta,
            int timeToLiveSeconds,
            int maxVersions,
            Optional<Integer> streamExpirationHours,
            long creationTimeMicros) {
        this(
                meta,
                timeToLiveSeconds,
                maxVersions,
                streamExpirationHours,
                creationTimeMicros,
                List.of());
    }

    public String name() {
        return meta.getTableName();
    }
}
