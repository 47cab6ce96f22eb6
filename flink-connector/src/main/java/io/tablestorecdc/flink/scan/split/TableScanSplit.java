package io.tablestorecdc.flink.scan.split;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.checkpoint.table.KeyRange;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One range of a bounded table scan, and how far it was read: the key of the last row emitted, so
 * that a restored reader continues after that row instead of at the range's start.
 *
 * @param splitId unique within one scan
 * @param range the keys the split covers
 * @param lastRead the key of the last row emitted, when any was
 */
@Internal
public record TableScanSplit(String splitId, KeyRange range, Optional<PrimaryKey> lastRead)
        implements SourceSplit {

    public TableScanSplit {
        Objects.requireNonNull(splitId, "splitId");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(lastRead, "lastRead");
    }

    /** A split nothing of which was read yet. */
    public static TableScanSplit unread(String splitId, KeyRange range) {
        return new TableScanSplit(splitId, range, Optional.empty());
    }

    /** The keys still to read: empty when the last row read was the range's last. */
    public Optional<KeyRange> remaining() {
        return lastRead.isEmpty() ? Optional.of(range) : range.remainderAfter(lastRead.get());
    }

    @Override
    public String toString() {
        return "TableScanSplit{"
                + splitId
                + ", range="
                + range
                + lastRead.map(k -> ", lastRead=" + k).orElse("")
                + "}";
    }
}
