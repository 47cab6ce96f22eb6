package io.tablestorecdc.flink.source.conformance;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.util.List;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;

/**
 * Writes the suite's records as rows of one key range, so that they land in one partition's
 * channel: row {@code <prefix>-<n>} with column {@code v} = the record, {@code n} counting up
 * across calls (keys never repeat, and their order is the order of writing).
 */
final class PartitionDataWriter implements ExternalSystemSplitDataWriter<String> {

    private final EmulatorBed bed;
    private final String table;
    private final String prefix;
    private int written;

    PartitionDataWriter(EmulatorBed bed, String table, String prefix) {
        this.bed = bed;
        this.table = table;
        this.prefix = prefix;
    }

    @Override
    public void writeRecords(List<String> records) {
        for (String record : records) {
            String id = String.format("%s-%06d", prefix, written++);
            bed.put(table, id, new Column(ValueColumn.NAME, ColumnValue.fromString(record)));
        }
    }

    @Override
    public void close() {}
}
