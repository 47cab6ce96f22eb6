package io.tablestorecdc.flink.scan.enumerator;

import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.checkpoint.table.TableService;
import io.tablestorecdc.flink.scan.TableServiceFactory;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans the scan once (ComputeSplitsBySize cut to the key bounds, off the coordinator thread) and
 * hands one split to each reader that asks, so fast readers take more splits; a reader that asks
 * when none is left is told there are no more. Splits of a failed reader come back and go to the
 * next reader that asks.
 */
@Internal
public final class TableScanEnumerator
        implements SplitEnumerator<TableScanSplit, TableScanEnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(TableScanEnumerator.class);

    private final SplitEnumeratorContext<TableScanSplit> context;
    private final TableServiceFactory services;
    private final long splitBytes;
    private final KeyBounds bounds;
    private final Deque<TableScanSplit> unassigned = new ArrayDeque<>();
    private final Set<Integer> waiting = new LinkedHashSet<>();
    private boolean planned;

    /**
     * @param restored the state of a checkpoint, or empty for a new scan
     */
    public TableScanEnumerator(
            SplitEnumeratorContext<TableScanSplit> context,
            TableServiceFactory services,
            long splitBytes,
            KeyBounds bounds,
            Optional<TableScanEnumeratorState> restored) {
        this.context = context;
        this.services = services;
        this.splitBytes = splitBytes;
        this.bounds = bounds;
        restored.ifPresent(
                state -> {
                    planned = state.planned();
                    unassigned.addAll(state.unassigned());
                });
    }

    @Override
    public void start() {
        if (!planned) {
            context.callAsync(this::plan, this::planned);
        }
    }

    private List<TableScanSplit> plan() {
        try (TableService service = services.open()) {
            TableReader reader = new TableReader(service, 0);
            List<KeyRange> ranges = reader.scanRanges(splitBytes, bounds);
            LOG.info(
                    "Scan of table '{}' ({}): {} splits of about {} bytes",
                    service.tableName(),
                    bounds.describe(reader.primaryKey()),
                    ranges.size(),
                    splitBytes);
            List<TableScanSplit> splits = new ArrayList<>(ranges.size());
            for (int i = 0; i < ranges.size(); i++) {
                splits.add(TableScanSplit.unread("range-" + i, ranges.get(i)));
            }
            return splits;
        }
    }

    private void planned(List<TableScanSplit> splits, Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException(
                    "Could not plan the splits of the table scan ("
                            + services
                            + "): "
                            + error.getMessage()
                            + ". Check that the table exists and the credentials may read it"
                            + " (ComputeSplitsBySize, GetRange).",
                    error);
        }
        unassigned.addAll(splits);
        planned = true;
        serveWaiting();
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        waiting.add(subtaskId);
        serveWaiting();
    }

    private void serveWaiting() {
        Iterator<Integer> it = waiting.iterator();
        while (it.hasNext()) {
            int subtask = it.next();
            if (!context.registeredReaders().containsKey(subtask)) {
                it.remove(); // failed since it asked: it asks again when it is back
            } else if (!unassigned.isEmpty()) {
                context.assignSplit(unassigned.poll(), subtask);
                it.remove();
            } else if (planned) {
                context.signalNoMoreSplits(subtask);
                it.remove();
            }
        }
    }

    @Override
    public void addSplitsBack(List<TableScanSplit> splits, int subtaskId) {
        // Back in front, so the scan reads them before the ones it has not started.
        for (int i = splits.size() - 1; i >= 0; i--) {
            unassigned.addFirst(splits.get(i));
        }
        serveWaiting();
    }

    @Override
    public void addReader(int subtaskId) {
        // Readers ask for splits themselves.
    }

    @Override
    public TableScanEnumeratorState snapshotState(long checkpointId) {
        return new TableScanEnumeratorState(planned, List.copyOf(unassigned));
    }

    @Override
    public void close() {}
}
