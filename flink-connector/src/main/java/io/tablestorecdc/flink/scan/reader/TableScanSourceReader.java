package io.tablestorecdc.flink.scan.reader;

import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import io.tablestorecdc.flink.scan.split.TableScanSplitState;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.table.data.RowData;

/**
 * Reads the splits the enumerator hands it, asking for the next when it has none left (as Flink's
 * file source does), so splits spread over readers by their speed.
 */
@Internal
public final class TableScanSourceReader
        extends SingleThreadMultiplexSourceReaderBase<
                Row, RowData, TableScanSplit, TableScanSplitState> {

    public TableScanSourceReader(
            Supplier<SplitReader<Row, TableScanSplit>> splitReader,
            RecordEmitter<Row, RowData, TableScanSplitState> emitter,
            Configuration config,
            SourceReaderContext context) {
        super(splitReader, emitter, config, context);
    }

    @Override
    public void start() {
        // A restored reader reads its restored splits first.
        if (getNumberOfCurrentlyAssignedSplits() == 0) {
            context.sendSplitRequest();
        }
    }

    @Override
    protected void onSplitFinished(Map<String, TableScanSplitState> finished) {
        context.sendSplitRequest();
    }

    @Override
    protected TableScanSplitState initializedState(TableScanSplit split) {
        return new TableScanSplitState(split);
    }

    @Override
    protected TableScanSplit toSplitType(String splitId, TableScanSplitState state) {
        return state.toSplit();
    }
}
