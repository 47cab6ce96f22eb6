package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.protocol.PlainBufferBuilder;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.emulator.table.RowChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Records are parsed here exactly as the SDK's ResponseFactory parses readrecords responses. */
class RecordEncoderTest {

    private static final PrimaryKey KEY =
            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                    .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("k1"))
                    .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(7))
                    .build();

    private static StreamRecord parse(TunnelServiceApi.Record record) throws Exception {
        List<PlainBufferRow> rows =
                new PlainBufferCodedInputStream(
                                new PlainBufferInputStream(
                                        record.getRecord().asReadOnlyByteBuffer()))
                        .readRowsWithHeader();
        assertThat(rows).hasSize(1);
        return PlainBufferConversion.toStreamRecord(
                rows.get(0), null, record.getActionType(), false);
    }

    private static LogEntry entry(StreamRecord.RecordType type, List<RecordColumn> columns) {
        return new LogEntry(
                new RowChange("t", KEY, type, columns, 1_700_000_000_123_456L),
                1_700_000_000_123_456_000L,
                3,
                41);
    }

    @Test
    void aPutCarriesValuesTimestampsAndSequenceInfo() throws Exception {
        Column c = new Column("v", ColumnValue.fromLong(5), 1234L);
        StreamRecord r =
                parse(
                        RecordEncoder.stream(
                                entry(
                                        StreamRecord.RecordType.PUT,
                                        List.of(
                                                new RecordColumn(
                                                        c, RecordColumn.ColumnType.PUT)))));

        assertThat(r.getRecordType()).isEqualTo(StreamRecord.RecordType.PUT);
        assertThat(r.getPrimaryKey()).isEqualTo(KEY);
        assertThat(r.getColumns()).hasSize(1);
        assertThat(r.getColumns().get(0).getColumn().getValue().asLong()).isEqualTo(5);
        assertThat(r.getColumns().get(0).getColumn().getTimestamp()).isEqualTo(1234L);
        assertThat(r.getSequenceInfo().getEpoch()).isEqualTo(3);
        assertThat(r.getSequenceInfo().getTimestamp()).isEqualTo(1_700_000_000_123_456L);
        assertThat(r.getSequenceInfo().getRowIndex()).isEqualTo(41);
    }

    @Test
    void anUpdateCarriesPerColumnOperations() throws Exception {
        List<RecordColumn> columns =
                List.of(
                        new RecordColumn(
                                new Column("a", ColumnValue.fromString("x"), 10L),
                                RecordColumn.ColumnType.PUT),
                        new RecordColumn(
                                new Column("b", ColumnValue.INTERNAL_NULL_VALUE, 20L),
                                RecordColumn.ColumnType.DELETE_ONE_VERSION),
                        new RecordColumn(
                                new Column("c", ColumnValue.INTERNAL_NULL_VALUE),
                                RecordColumn.ColumnType.DELETE_ALL_VERSION));
        StreamRecord r =
                parse(RecordEncoder.stream(entry(StreamRecord.RecordType.UPDATE, columns)));

        assertThat(r.getRecordType()).isEqualTo(StreamRecord.RecordType.UPDATE);
        assertThat(r.getColumns())
                .extracting(RecordColumn::getColumnType)
                .containsExactly(
                        RecordColumn.ColumnType.PUT,
                        RecordColumn.ColumnType.DELETE_ONE_VERSION,
                        RecordColumn.ColumnType.DELETE_ALL_VERSION);
        assertThat(r.getColumns().get(1).getColumn().getTimestamp()).isEqualTo(20L);
    }

    @Test
    void aDeleteCarriesTheKeyOnly() throws Exception {
        StreamRecord r =
                parse(RecordEncoder.stream(entry(StreamRecord.RecordType.DELETE, List.of())));

        assertThat(r.getRecordType()).isEqualTo(StreamRecord.RecordType.DELETE);
        assertThat(r.getPrimaryKey()).isEqualTo(KEY);
        assertThat(r.getColumns()).isEmpty();
    }

    @Test
    void aBaseRowIsAPutWithEveryVersion() throws Exception {
        Row row =
                new Row(
                        KEY,
                        List.of(
                                new Column("v", ColumnValue.fromLong(2), 200L),
                                new Column("v", ColumnValue.fromLong(1), 100L)));
        StreamRecord r = parse(RecordEncoder.base(row, 0));

        assertThat(r.getRecordType()).isEqualTo(StreamRecord.RecordType.PUT);
        assertThat(r.getColumns()).hasSize(2);
    }

    @Test
    void theExtensionLengthsMatchTheSdksOwn() {
        assertThat(RecordEncoder.SEQ_INFO_BODY)
                .isEqualTo(PlainBufferBuilder.computeSkipLengthForSequenceInfo());
    }
}
