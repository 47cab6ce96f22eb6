package io.tablestorecdc.flink.scan.reader;

import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.flink.scan.TableRowConverter;
import io.tablestorecdc.flink.scan.split.TableScanSplitState;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.table.data.RowData;

/** Emits a row and only then moves its split past it, so a checkpoint never skips a row. */
@Internal
public final class TableScanRecordEmitter
        implements RecordEmitter<Row, RowData, TableScanSplitState> {

    private final TableRowConverter converter;

    public TableScanRecordEmitter(TableRowConverter converter) {
        this.converter = converter;
    }

    @Override
    public void emitRecord(Row row, SourceOutput<RowData> output, TableScanSplitState split) {
        output.collect(converter.convert(row));
        split.emitted(row.getPrimaryKey());
    }
}
