package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RecordSequenceInfo;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeRecordConverterTest {

    private static PrimaryKey pk() {
        return new PrimaryKey(
                List.of(
                        new PrimaryKeyColumn("user", PrimaryKeyValue.fromString("u1")),
                        new PrimaryKeyColumn("seq", PrimaryKeyValue.fromLong(42)),
                        new PrimaryKeyColumn(
                                "tag", PrimaryKeyValue.fromBinary(new byte[] {1, 2}))));
    }

    private static StreamRecord record(
            StreamRecord.RecordType type, List<RecordColumn> columns, RecordSequenceInfo seq) {
        StreamRecord record = new StreamRecord();
        record.setRecordType(type);
        record.setPrimaryKey(pk());
        record.setColumns(columns);
        record.setSequenceInfo(seq);
        return record;
    }

    private static RecordColumn put(String name, ColumnValue value, long ts) {
        return new RecordColumn(new Column(name, value, ts), RecordColumn.ColumnType.PUT);
    }

    @Test
    void recordsOfOneResponseShareOneInstancePerColumnName() {
        ChangeRecordConverter converter = new ChangeRecordConverter("ch-1", new ColumnNames());
        StreamRecord first =
                record(
                        StreamRecord.RecordType.PUT,
                        List.of(put(new String("qty"), ColumnValue.fromLong(1), 1)),
                        new RecordSequenceInfo(1, 1L, 0));
        StreamRecord second =
                record(
                        StreamRecord.RecordType.PUT,
                        List.of(put(new String("qty"), ColumnValue.fromLong(2), 2)),
                        new RecordSequenceInfo(1, 2L, 0));

        ChangeRecord a = converter.toChangeRecord(first);
        ChangeRecord b = converter.toChangeRecord(second);

        assertThat(b.columns().get(0).name()).isSameAs(a.columns().get(0).name());
        assertThat(b.columns().get(0).value()).isEqualTo(CellValue.ofInteger(2));
    }

    @Test
    void aPutKeepsTheKeyOrderEveryValueTypeAndTheSequence() {
        StreamRecord sdk =
                record(
                        StreamRecord.RecordType.PUT,
                        List.of(
                                put("s", ColumnValue.fromString("héllo"), 1000),
                                put("i", ColumnValue.fromLong(-7), 1001),
                                put("d", ColumnValue.fromDouble(2.5), 1002),
                                put("b", ColumnValue.fromBoolean(true), 1003),
                                put("x", ColumnValue.fromBinary(new byte[] {9}), 1004)),
                        new RecordSequenceInfo(3, 1_700_000_000_123_456L, 7));

        ChangeRecord change = ChangeRecordConverter.toChangeRecord(sdk, "ch-1");

        assertThat(change.action()).isEqualTo(Action.PUT);
        assertThat(change.channelId()).isEqualTo("ch-1");
        assertThat(change.primaryKey())
                .containsExactly(
                        new ChangeRecord.PrimaryKeyColumn("user", CellValue.ofString("u1")),
                        new ChangeRecord.PrimaryKeyColumn("seq", CellValue.ofInteger(42)),
                        new ChangeRecord.PrimaryKeyColumn(
                                "tag", CellValue.ofBinary(new byte[] {1, 2})));
        assertThat(change.columns())
                .containsExactly(
                        new ColumnChange(
                                "s", ColumnOperation.PUT, CellValue.ofString("héllo"), 1000),
                        new ColumnChange("i", ColumnOperation.PUT, CellValue.ofInteger(-7), 1001),
                        new ColumnChange("d", ColumnOperation.PUT, CellValue.ofDouble(2.5), 1002),
                        new ColumnChange("b", ColumnOperation.PUT, CellValue.ofBoolean(true), 1003),
                        new ColumnChange(
                                "x",
                                ColumnOperation.PUT,
                                CellValue.ofBinary(new byte[] {9}),
                                1004));
        assertThat(change.sequence()).isEqualTo(new SequenceInfo(3, 1_700_000_000_123_456L, 7));
        assertThat(change.commitTimestampMicros()).isEqualTo(1_700_000_000_123_456L);
    }

    @Test
    void anUpdateCarriesPerColumnDeleteOperations() {
        StreamRecord sdk =
                record(
                        StreamRecord.RecordType.UPDATE,
                        List.of(
                                put("a", ColumnValue.fromLong(1), 5),
                                new RecordColumn(
                                        new Column("old", ColumnValue.INTERNAL_NULL_VALUE, 4),
                                        RecordColumn.ColumnType.DELETE_ONE_VERSION),
                                new RecordColumn(
                                        new Column("gone", ColumnValue.INTERNAL_NULL_VALUE),
                                        RecordColumn.ColumnType.DELETE_ALL_VERSION)),
                        null);

        ChangeRecord change = ChangeRecordConverter.toChangeRecord(sdk, "ch-1");

        assertThat(change.action()).isEqualTo(Action.UPDATE);
        assertThat(change.columns())
                .containsExactly(
                        new ColumnChange("a", ColumnOperation.PUT, CellValue.ofInteger(1), 5),
                        new ColumnChange("old", ColumnOperation.DELETE_ONE_VERSION, null, 4),
                        new ColumnChange("gone", ColumnOperation.DELETE_ALL_VERSION, null, 0));
        assertThat(change.sequence()).isEqualTo(SequenceInfo.NONE);
    }

    @Test
    void theOriginColumnsOfARecordAreItsBeforeImage() {
        StreamRecord sdk =
                record(
                        StreamRecord.RecordType.UPDATE,
                        List.of(put("a", ColumnValue.fromLong(2), 9)),
                        null);
        sdk.setOriginColumns(
                List.of(
                        put("a", ColumnValue.fromLong(1), 5),
                        put("b", ColumnValue.fromString("x"), 6)));

        ChangeRecord change = ChangeRecordConverter.toChangeRecord(sdk, "ch-1");

        assertThat(change.before())
                .containsExactly(
                        new ColumnChange("a", ColumnOperation.PUT, CellValue.ofInteger(1), 5),
                        new ColumnChange("b", ColumnOperation.PUT, CellValue.ofString("x"), 6));
        assertThat(change.columns())
                .containsExactly(
                        new ColumnChange("a", ColumnOperation.PUT, CellValue.ofInteger(2), 9));
        assertThat(
                        ChangeRecordConverter.toChangeRecord(
                                        record(StreamRecord.RecordType.DELETE, List.of(), null),
                                        "ch-1")
                                .before())
                .as("a record without origin columns has no before-image")
                .isEmpty();
    }

    @Test
    void aBeforeImageColumnWithoutAValueIsAClearError() {
        StreamRecord sdk = record(StreamRecord.RecordType.DELETE, List.of(), null);
        sdk.setOriginColumns(
                List.of(
                        new RecordColumn(
                                new Column("a", ColumnValue.INTERNAL_NULL_VALUE),
                                RecordColumn.ColumnType.DELETE_ALL_VERSION)));

        assertThatThrownBy(() -> ChangeRecordConverter.toChangeRecord(sdk, "ch-4"))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_RESPONSE))
                .hasMessageContaining("before-image column a")
                .hasMessageContaining("ch-4");
    }

    @Test
    void aDeleteHasAKeyAndNoColumns() {
        ChangeRecord change =
                ChangeRecordConverter.toChangeRecord(
                        record(StreamRecord.RecordType.DELETE, List.of(), null), "ch-2");

        assertThat(change.action()).isEqualTo(Action.DELETE);
        assertThat(change.primaryKey()).hasSize(3);
        assertThat(change.columns()).isEmpty();
    }

    @Test
    void aRecordWithoutAPrimaryKeyIsAClearError() {
        StreamRecord sdk = record(StreamRecord.RecordType.PUT, List.of(), null);
        sdk.setPrimaryKey(new PrimaryKey());

        assertThatThrownBy(() -> ChangeRecordConverter.toChangeRecord(sdk, "ch-3"))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_RESPONSE))
                .hasMessageContaining("without a primary key")
                .hasMessageContaining("ch-3");
    }
}
