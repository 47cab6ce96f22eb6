package io.tablestorecdc.flink.scan.reader;

import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.checkpoint.table.TableService;
import io.tablestorecdc.flink.scan.TableServiceFactory;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * Reads the splits of one reader one after another, from where each was left (after its last
 * emitted row), in batches of at most {@value #BATCH_ROWS} rows; GetRange pages are fetched as the
 * batches need them.
 */
@Internal
public final class TableScanSplitReader implements SplitReader<Row, TableScanSplit> {

    /** Rows handed to the reader per fetch: small enough to check for a wake-up often. */
    static final int BATCH_ROWS = 1000;

    private final TableServiceFactory services;
    private final Set<String> columns;
    private final Deque<TableScanSplit> splits = new ArrayDeque<>();
    private TableService service;
    private TableReader reader;
    private String current;
    private Iterator<Row> rows = Collections.emptyIterator();

    public TableScanSplitReader(TableServiceFactory services, Set<String> columns) {
        this.services = services;
        this.columns = Set.copyOf(columns);
    }

    @Override
    public RecordsWithSplitIds<Row> fetch() throws IOException {
        RecordsBySplits.Builder<Row> batch = new RecordsBySplits.Builder<>();
        if (current == null && !startNext(batch)) {
            return batch.build();
        }
        try {
            for (int i = 0; i < BATCH_ROWS && rows.hasNext(); i++) {
                batch.add(current, rows.next());
            }
            if (!rows.hasNext()) {
                batch.addFinishedSplit(current);
                current = null;
            }
        } catch (RuntimeException e) {
            throw new IOException(
                    "Reading split "
                            + current
                            + " of table '"
                            + service.tableName()
                            + "' failed: "
                            + e.getMessage()
                            + ". With checkpointing, a restart continues the split after its last"
                            + " checkpointed row.",
                    e);
        }
        return batch.build();
    }

    /** Opens the next split with rows left; splits already read to the end finish at once. */
    private boolean startNext(RecordsBySplits.Builder<Row> batch) {
        while (!splits.isEmpty()) {
            TableScanSplit split = splits.poll();
            Optional<KeyRange> remaining = split.remaining();
            if (remaining.isEmpty()) {
                batch.addFinishedSplit(split.splitId());
                continue;
            }
            current = split.splitId();
            rows = reader().rows(remaining.get(), columns);
            return true;
        }
        return false;
    }

    private TableReader reader() {
        if (reader == null) {
            service = services.open();
            reader = new TableReader(service, 0);
        }
        return reader;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<TableScanSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "A table scan reader only takes new splits, not " + change);
        }
        splits.addAll(change.splits());
    }

    @Override
    public void wakeUp() {
        // fetch() returns after one batch; nothing blocks that a wake-up must interrupt.
    }

    @Override
    public void close() {
        if (service != null) {
            service.close();
        }
    }
}
