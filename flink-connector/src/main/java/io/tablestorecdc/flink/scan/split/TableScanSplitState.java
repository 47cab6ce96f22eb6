package io.tablestorecdc.flink.scan.split;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/** A split being read: moved forward by each row the reader emits, never by a row fetched only. */
@Internal
public final class TableScanSplitState {

    private final TableScanSplit split;
    private Optional<PrimaryKey> lastRead;

    public TableScanSplitState(TableScanSplit split) {
        this.split = split;
        this.lastRead = split.lastRead();
    }

    /** Records that the row of {@code key} was emitted. */
    public void emitted(PrimaryKey key) {
        lastRead = Optional.of(key);
    }

    /** The split as a checkpoint stores it. */
    public TableScanSplit toSplit() {
        return new TableScanSplit(split.splitId(), split.range(), lastRead);
    }
}
