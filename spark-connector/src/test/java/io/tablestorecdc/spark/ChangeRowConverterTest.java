package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class ChangeRowConverterTest {

    static final StructType ATTRIBUTES =
            new StructType()
                    .add("name", DataTypes.StringType)
                    .add("qty", DataTypes.IntegerType)
                    .add("price", DataTypes.DoubleType)
                    .add("ok", DataTypes.BooleanType)
                    .add("blob", DataTypes.BinaryType);

    static final OutputSchema TYPED = OutputSchema.of(OutputSchemaTest.PK, ATTRIBUTES);
    static final OutputSchema MAP = OutputSchema.inferred(OutputSchemaTest.PK);

    // id, n, name, qty, price, ok, blob, _table, _op, _commit_ts, _channel, _seq, _column_ops
    static final int OP = 8;

    static ChangeRecord record(Action action, List<ColumnChange> columns) {
        return new ChangeRecord(
                action,
                List.of(
                        new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString("k1")),
                        new ChangeRecord.PrimaryKeyColumn("n", CellValue.ofInteger(7))),
                columns,
                new SequenceInfo(2, 1_700_000_000_000_000L, 5),
                "p-3");
    }

    static ColumnChange put(String name, CellValue value) {
        return new ColumnChange(name, ColumnOperation.PUT, value, 1L);
    }

    static ChangeRowConverter converter(OutputSchema schema, boolean skip, boolean ignoreDelete) {
        return new ChangeRowConverter(schema, "orders", skip, ignoreDelete);
    }

    @Test
    void putFillsKeyAttributesAndMetadata() {
        ChangeRecord r =
                record(
                        Action.PUT,
                        List.of(
                                put("name", CellValue.ofString("apple")),
                                put("qty", CellValue.ofInteger(3)),
                                put("price", CellValue.ofDouble(1.5)),
                                put("ok", CellValue.ofBoolean(true)),
                                put("blob", CellValue.ofBinary(new byte[] {1, 2})),
                                put("other", CellValue.ofString("not declared"))));

        InternalRow row = converter(TYPED, false, false).convert(r).orElseThrow();

        assertThat(row.getUTF8String(0).toString()).isEqualTo("k1");
        assertThat(row.getLong(1)).isEqualTo(7L);
        assertThat(row.getUTF8String(2).toString()).isEqualTo("apple");
        assertThat(row.getInt(3)).isEqualTo(3);
        assertThat(row.getDouble(4)).isEqualTo(1.5);
        assertThat(row.getBoolean(5)).isTrue();
        assertThat(row.getBinary(6)).containsExactly(1, 2);
        assertThat(row.getUTF8String(OP - 1).toString()).isEqualTo("orders");
        assertThat(row.getUTF8String(OP).toString()).isEqualTo("PUT");
        assertThat(row.getLong(OP + 1)).isEqualTo(1_700_000_000_000_000L);
        assertThat(row.getUTF8String(OP + 2).toString()).isEqualTo("p-3");
        InternalRow seq = row.getStruct(OP + 3, 3);
        assertThat(List.of(seq.getInt(0), seq.getLong(1), seq.getInt(2)))
                .containsExactly(2, 1_700_000_000_000_000L, 5);
        assertThat(map(row.getMap(OP + 4))).containsEntry("other", "PUT").hasSize(6);
    }

    @Test
    void updateLeavesUntouchedColumnsNullAndReportsColumnOperations() {
        ChangeRecord r =
                record(
                        Action.UPDATE,
                        List.of(
                                put("qty", CellValue.ofInteger(4)),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ALL_VERSION, null, 0),
                                new ColumnChange(
                                        "price", ColumnOperation.DELETE_ONE_VERSION, null, 9)));

        InternalRow row = converter(TYPED, false, false).convert(r).orElseThrow();

        assertThat(row.getInt(3)).isEqualTo(4);
        assertThat(row.isNullAt(2)).isTrue();
        assertThat(row.isNullAt(4)).isTrue();
        assertThat(row.isNullAt(5)).isTrue();
        assertThat(row.getUTF8String(OP).toString()).isEqualTo("UPDATE");
        assertThat(map(row.getMap(OP + 4)))
                .containsExactlyEntriesOf(
                        orderedMap(
                                "qty", "PUT",
                                "name", "DELETE_ALL_VERSION",
                                "price", "DELETE_ONE_VERSION"));
    }

    @Test
    void deleteCarriesOnlyTheKey() {
        InternalRow row =
                converter(TYPED, false, false)
                        .convert(record(Action.DELETE, List.of()))
                        .orElseThrow();

        assertThat(row.getUTF8String(0).toString()).isEqualTo("k1");
        assertThat(row.isNullAt(2)).isTrue();
        assertThat(row.getUTF8String(OP).toString()).isEqualTo("DELETE");
        assertThat(row.getMap(OP + 4).numElements()).isZero();
    }

    @Test
    void ignoreDeleteDropsDeletesAndCountsThem() {
        ChangeRowConverter c = converter(TYPED, false, true);

        assertThat(c.convert(record(Action.DELETE, List.of()))).isEmpty();
        assertThat(c.convert(record(Action.PUT, List.of()))).isPresent();
        assertThat(c.ignoredDeletes()).isEqualTo(1);
    }

    @Test
    void oneConverterFollowsRecordsWhoseColumnsAndChannelsChange() {
        ChangeRowConverter c = converter(TYPED, false, false);
        ChangeRecord first =
                record(
                        Action.PUT,
                        List.of(
                                put("name", CellValue.ofString("a")),
                                put("qty", CellValue.ofInteger(1))));
        ChangeRecord reordered =
                record(
                        Action.UPDATE,
                        List.of(
                                put("qty", CellValue.ofInteger(2)),
                                put("other", CellValue.ofString("x")),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ONE_VERSION, null, 3)));
        ChangeRecord elsewhere =
                new ChangeRecord(
                        Action.PUT,
                        first.primaryKey(),
                        List.of(put("price", CellValue.ofDouble(2.5))),
                        first.sequence(),
                        "p-4");

        c.convert(first).orElseThrow();
        InternalRow second = c.convert(reordered).orElseThrow();
        InternalRow third = c.convert(elsewhere).orElseThrow();
        InternalRow again = c.convert(first).orElseThrow();

        assertThat(second.isNullAt(2)).isTrue();
        assertThat(second.getInt(3)).isEqualTo(2);
        assertThat(map(second.getMap(OP + 4)))
                .containsExactlyEntriesOf(
                        orderedMap("qty", "PUT", "other", "PUT", "name", "DELETE_ONE_VERSION"));
        assertThat(third.isNullAt(3)).isTrue();
        assertThat(third.getDouble(4)).isEqualTo(2.5);
        assertThat(third.getUTF8String(OP + 2).toString()).isEqualTo("p-4");
        assertThat(map(third.getMap(OP + 4))).containsExactlyEntriesOf(orderedMap("price", "PUT"));
        assertThat(again.getUTF8String(2).toString()).isEqualTo("a");
        assertThat(again.getUTF8String(OP + 2).toString()).isEqualTo("p-3");
        assertThat(map(again.getMap(OP + 4)))
                .containsExactlyEntriesOf(orderedMap("name", "PUT", "qty", "PUT"));
    }

    @Test
    void aColumnRepeatedInOneChangeTakesItsLastOperationAtItsFirstPosition() {
        ChangeRecord r =
                record(
                        Action.UPDATE,
                        List.of(
                                new ColumnChange(
                                        "qty", ColumnOperation.DELETE_ONE_VERSION, null, 1),
                                put("name", CellValue.ofString("b")),
                                put("qty", CellValue.ofInteger(5))));

        InternalRow row = converter(TYPED, false, false).convert(r).orElseThrow();

        assertThat(row.getInt(3)).isEqualTo(5);
        assertThat(map(row.getMap(OP + 4)))
                .containsExactlyEntriesOf(orderedMap("qty", "PUT", "name", "PUT"));
    }

    @Test
    void withoutUserSchemaValuesAreStringsInOneMap() {
        ChangeRecord r =
                record(
                        Action.UPDATE,
                        List.of(
                                put("a", CellValue.ofInteger(42)),
                                put("b", CellValue.ofDouble(0.25)),
                                put("c", CellValue.ofBoolean(false)),
                                put("d", CellValue.ofBinary(new byte[] {(byte) 0xff})),
                                put("e", CellValue.ofString("x")),
                                new ColumnChange(
                                        "f", ColumnOperation.DELETE_ALL_VERSION, null, 0)));

        InternalRow row = converter(MAP, false, false).convert(r).orElseThrow();

        assertThat(map(row.getMap(2)))
                .containsExactlyEntriesOf(
                        orderedMap("a", "42", "b", "0.25", "c", "false", "d", "/w==", "e", "x"));
        assertThat(row.getUTF8String(3).toString()).isEqualTo("orders");
        assertThat(map(row.getMap(8))).containsEntry("f", "DELETE_ALL_VERSION");
    }

    @Test
    void aValueThatDoesNotFitFailsNamingTableChannelKeyAndColumn() {
        ChangeRecord r =
                record(Action.PUT, List.of(put("qty", CellValue.ofInteger(5_000_000_000L))));

        assertThatThrownBy(() -> converter(TYPED, false, false).convert(r))
                .isInstanceOf(ChangeRowConverter.InvalidRecordException.class)
                .hasMessageContaining("Table 'orders'")
                .hasMessageContaining("channel p-3")
                .hasMessageContaining("key (id='k1', n=7)")
                .hasMessageContaining("column 'qty' holds INTEGER value 5000000000")
                .hasMessageContaining("declared type int")
                .hasMessageContaining("skip.invalid.data=true");
    }

    @Test
    void aValueOfAnotherTypeFails() {
        ChangeRecord r = record(Action.PUT, List.of(put("price", CellValue.ofString("cheap"))));

        assertThatThrownBy(() -> converter(TYPED, false, false).convert(r))
                .hasMessageContaining("column 'price' holds STRING value 'cheap'")
                .hasMessageContaining("declared type double");
    }

    @Test
    void skipInvalidDataDropsAndCountsTheRecord() {
        ChangeRowConverter c = converter(TYPED, true, false);

        assertThat(c.convert(record(Action.PUT, List.of(put("ok", CellValue.ofInteger(1))))))
                .isEmpty();
        assertThat(c.skippedInvalid()).isEqualTo(1);
    }

    @Test
    void primaryKeyOfAnotherTypeIsInvalid() {
        ChangeRecord r =
                new ChangeRecord(
                        Action.PUT,
                        List.of(
                                new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(1)),
                                new ChangeRecord.PrimaryKeyColumn("n", CellValue.ofInteger(7))),
                        List.of(),
                        SequenceInfo.NONE,
                        "p-0");

        assertThatThrownBy(() -> converter(TYPED, false, false).convert(r))
                .hasMessageContaining("column 'id' holds INTEGER value 1")
                .hasMessageContaining("declared type string");
    }

    @Test
    void unknownCommitTimeIsNull() {
        ChangeRecord r =
                new ChangeRecord(
                        Action.PUT,
                        record(Action.PUT, List.of()).primaryKey(),
                        List.of(),
                        SequenceInfo.NONE,
                        "BaseData_p-0");

        InternalRow row = converter(TYPED, false, false).convert(r).orElseThrow();

        assertThat(row.isNullAt(OP + 1)).isTrue();
    }

    @Test
    void integersWidenOrNarrowOnlyWhenTheyFit() {
        assertThat(ChangeRowConverter.convertTo(CellValue.ofInteger(300), DataTypes.ShortType))
                .contains((short) 300);
        assertThat(ChangeRowConverter.convertTo(CellValue.ofInteger(300), DataTypes.ByteType))
                .isEmpty();
        assertThat(ChangeRowConverter.convertTo(CellValue.ofInteger(3), DataTypes.DoubleType))
                .contains(3.0);
        assertThat(
                        ChangeRowConverter.convertTo(
                                CellValue.ofInteger(Long.MAX_VALUE), DataTypes.DoubleType))
                .isEmpty();
        assertThat(ChangeRowConverter.convertTo(CellValue.ofDouble(3.0), DataTypes.LongType))
                .isEmpty();
    }

    static Map<String, String> map(MapData data) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < data.numElements(); i++) {
            out.put(
                    data.keyArray().getUTF8String(i).toString(),
                    data.valueArray().getUTF8String(i).toString());
        }
        return out;
    }

    static Map<String, String> orderedMap(String... kv) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], kv[i + 1]);
        }
        return out;
    }
}
