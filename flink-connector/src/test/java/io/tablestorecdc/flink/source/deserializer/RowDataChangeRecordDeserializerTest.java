package io.tablestorecdc.flink.source.deserializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

class RowDataChangeRecordDeserializerTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(false),
                        new VarCharType(VarCharType.MAX_LENGTH),
                        new IntType(),
                        new DoubleType(),
                        new BooleanType(),
                        new VarBinaryType(VarBinaryType.MAX_LENGTH)
                    },
                    new String[] {"id", "name", "qty", "price", "ok", "blob"});

    private final RowDataChangeRecordDeserializer deserializer =
            new RowDataChangeRecordDeserializer(ROW, TypeInformation.of(RowData.class));

    @Test
    void aPutBecomesAnInsertWithEveryColumnByName() throws Exception {
        RowData row =
                deserializer.toRowData(
                        change(
                                ChangeRecord.Action.PUT,
                                put("ok", CellValue.ofBoolean(true)),
                                put("name", CellValue.ofString("apple")),
                                put("qty", CellValue.ofInteger(3)),
                                put("price", CellValue.ofInteger(2)),
                                put("blob", CellValue.ofBinary(new byte[] {1, 2}))));

        assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
        assertThat(row.getLong(0)).isEqualTo(7L);
        assertThat(row.getString(1)).isEqualTo(StringData.fromString("apple"));
        assertThat(row.getInt(2)).isEqualTo(3);
        assertThat(row.getDouble(3)).isEqualTo(2.0);
        assertThat(row.getBoolean(4)).isTrue();
        assertThat(row.getBinary(5)).containsExactly(1, 2);
    }

    @Test
    void anUpdateCarriesOnlyTouchedColumnsAndADeleteOnlyTheKey() throws Exception {
        RowData update =
                deserializer.toRowData(
                        change(
                                ChangeRecord.Action.UPDATE,
                                put("qty", CellValue.ofInteger(4)),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ALL_VERSION, null, 0)));
        RowData delete = deserializer.toRowData(change(ChangeRecord.Action.DELETE));

        assertThat(update.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(update.getInt(2)).isEqualTo(4);
        assertThat(update.isNullAt(1)).isTrue();
        assertThat(delete.getRowKind()).isEqualTo(RowKind.DELETE);
        assertThat(delete.getLong(0)).isEqualTo(7L);
        assertThat(delete.isNullAt(2)).isTrue();
    }

    @Test
    void aValueThatDoesNotFitNamesTheColumnAndTheFix() {
        assertThatThrownBy(
                        () ->
                                deserializer.toRowData(
                                        change(
                                                ChangeRecord.Action.PUT,
                                                put("qty", CellValue.ofString("x")))))
                .isInstanceOf(InvalidChangeRecordException.class)
                .hasMessageContaining("Column 'qty'")
                .hasMessageContaining("STRING")
                .hasMessageContaining("skip.invalid.data=true");
        assertThatThrownBy(
                        () ->
                                deserializer.toRowData(
                                        change(
                                                ChangeRecord.Action.PUT,
                                                put("qty", CellValue.ofInteger(1L << 40)))))
                .isInstanceOf(InvalidChangeRecordException.class)
                .hasMessageContaining("Column 'qty'");
    }

    @Test
    void theWriterWritesTheDeserializersRowStraightFromTheChange() throws Exception {
        List<ChangeRecord> changes =
                List.of(
                        change(
                                ChangeRecord.Action.PUT,
                                put("ok", CellValue.ofBoolean(true)),
                                put("name", CellValue.ofString("äpfel")),
                                put("qty", CellValue.ofInteger(3)),
                                put("price", CellValue.ofInteger(2)),
                                put("blob", CellValue.ofBinary(new byte[] {1, 2}))),
                        change(
                                ChangeRecord.Action.UPDATE,
                                put("qty", CellValue.ofInteger(4)),
                                put("price", CellValue.ofDouble(1.5)),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ALL_VERSION, null, 0)),
                        // a later put wins; a deletion after a put leaves the put; unknown columns
                        // are ignored; a column named as the key does not replace it
                        change(
                                ChangeRecord.Action.UPDATE,
                                put("qty", CellValue.ofInteger(1)),
                                put("qty", CellValue.ofInteger(2)),
                                put("name", CellValue.ofString("kept")),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ONE_VERSION, null, 9),
                                put("unknown", CellValue.ofString("x")),
                                put("id", CellValue.ofInteger(99))),
                        change(ChangeRecord.Action.DELETE));
        ChangeWriter<RowData> writer = deserializer.changeWriter().orElseThrow();

        for (ChangeRecord change : changes) {
            RecordPage.of(List.of(change)).visit(0, writer);

            assertThat(writer.action()).isEqualTo(change.action());
            assertThat(writer.finish()).as("%s", change).isEqualTo(deserializer.toRowData(change));
        }
    }

    @Test
    void theWriterLeavesWhatTheDeserializerMustNameToIt() {
        ChangeWriter<RowData> writer = deserializer.changeWriter().orElseThrow();
        RowDataChangeRecordDeserializer notNullName =
                new RowDataChangeRecordDeserializer(
                        RowType.of(
                                new LogicalType[] {new BigIntType(), new VarCharType(false, 10)},
                                new String[] {"id", "name"}),
                        TypeInformation.of(RowData.class));
        ChangeWriter<RowData> notNullWriter = notNullName.changeWriter().orElseThrow();

        RecordPage.of(List.of(change(ChangeRecord.Action.PUT, put("qty", CellValue.ofString("x")))))
                .visit(0, writer);
        assertThat(writer.finish()).as("a value of another type").isNull();
        RecordPage.of(
                        List.of(
                                change(
                                        ChangeRecord.Action.PUT,
                                        put("qty", CellValue.ofInteger(1L << 40)))))
                .visit(0, writer);
        assertThat(writer.finish()).as("an integer too wide for INT").isNull();
        RecordPage.of(List.of(change(ChangeRecord.Action.PUT))).visit(0, notNullWriter);
        assertThat(notNullWriter.finish()).as("a NOT NULL field without a value").isNull();
        RecordPage.of(List.of(change(ChangeRecord.Action.PUT, put("qty", CellValue.ofInteger(5)))))
                .visit(0, writer);
        assertThat(writer.finish().getInt(2)).as("the next change starts afresh").isEqualTo(5);
    }

    @Test
    void aTypeTablestoreCannotHoldIsRefusedUpFront() {
        RowType withDate = RowType.of(new LogicalType[] {new DateType()}, new String[] {"day"});

        assertThatThrownBy(
                        () ->
                                new RowDataChangeRecordDeserializer(
                                        withDate, TypeInformation.of(RowData.class)))
                .hasMessageContaining("Field 'day' has type DATE")
                .hasMessageContaining("use STRING, VARCHAR(n), CHAR(n), BIGINT");
    }

    @Test
    void theValuesMapHoldsEachAttributeAsTextAndEachDeletedColumnAsNull() throws Exception {
        RowDataChangeRecordDeserializer loose = schemaFree(new VarCharType(VarCharType.MAX_LENGTH));
        List<ChangeRecord> changes =
                List.of(
                        change(
                                ChangeRecord.Action.PUT,
                                put("ok", CellValue.ofBoolean(true)),
                                put("name", CellValue.ofString("äpfel")),
                                put("qty", CellValue.ofInteger(-3)),
                                put("price", CellValue.ofDouble(1.5)),
                                put("blob", CellValue.ofBinary(new byte[] {1, 2}))),
                        // a put wins over a deletion of the same column, in either order; a
                        // column named as the key is not an attribute; '_values' itself is one
                        change(
                                ChangeRecord.Action.UPDATE,
                                put("qty", CellValue.ofInteger(4)),
                                new ColumnChange(
                                        "qty", ColumnOperation.DELETE_ONE_VERSION, null, 9),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ALL_VERSION, null, 0),
                                new ColumnChange("v", ColumnOperation.DELETE_ALL_VERSION, null, 0),
                                put("v", CellValue.ofInteger(2)),
                                put("id", CellValue.ofInteger(99)),
                                put("_values", CellValue.ofString("plain"))),
                        change(ChangeRecord.Action.DELETE));
        ChangeWriter<RowData> writer = loose.changeWriter().orElseThrow();

        assertThat(texts(loose.toRowData(changes.get(0))))
                .containsExactly(
                        entry("ok", "true"),
                        entry("name", "äpfel"),
                        entry("qty", "-3"),
                        entry("price", "1.5"),
                        entry("blob", "AQI="));
        Map<String, String> update = new LinkedHashMap<>();
        update.put("qty", "4");
        update.put("name", null);
        update.put("v", "2");
        update.put("_values", "plain");
        assertThat(texts(loose.toRowData(changes.get(1)))).isEqualTo(update);
        assertThat(loose.toRowData(changes.get(1)).getLong(0)).isEqualTo(7L);
        assertThat(texts(loose.toRowData(changes.get(2)))).isEmpty();
        for (ChangeRecord change : changes) {
            RecordPage.of(List.of(change)).visit(0, writer);

            RowData written = writer.finish();
            assertThat(written).as("%s", change).isEqualTo(loose.toRowData(change));
            assertThat(texts(written)).as("%s", change).isEqualTo(texts(loose.toRowData(change)));
        }
    }

    @Test
    void aValuesMapOfNotNullTextsLeavesDeletedColumnsOut() throws Exception {
        RowDataChangeRecordDeserializer loose = schemaFree(new VarCharType(false, 100));
        ChangeRecord update =
                change(
                        ChangeRecord.Action.UPDATE,
                        put("qty", CellValue.ofInteger(4)),
                        new ColumnChange("name", ColumnOperation.DELETE_ALL_VERSION, null, 0));
        ChangeWriter<RowData> writer = loose.changeWriter().orElseThrow();
        RecordPage.of(List.of(update)).visit(0, writer);

        assertThat(texts(loose.toRowData(update))).containsExactly(entry("qty", "4"));
        assertThat(texts(writer.finish())).containsExactly(entry("qty", "4"));
    }

    @Test
    void aValuesFieldOfAnotherTypeIsRefusedNamingTheType() {
        RowType wrong =
                RowType.of(
                        new LogicalType[] {new MapType(new VarCharType(), new BigIntType())},
                        new String[] {"_values"});

        assertThatThrownBy(
                        () ->
                                new RowDataChangeRecordDeserializer(
                                        wrong, TypeInformation.of(RowData.class)))
                .hasMessageContaining("Field '_values' has type MAP<VARCHAR(1), BIGINT>")
                .hasMessageContaining("declare it as MAP<STRING, STRING>");
    }

    private static RowDataChangeRecordDeserializer schemaFree(LogicalType textType) {
        return new RowDataChangeRecordDeserializer(
                RowType.of(
                        new LogicalType[] {
                            new BigIntType(false),
                            new MapType(new VarCharType(VarCharType.MAX_LENGTH), textType)
                        },
                        new String[] {"id", "_values"}),
                TypeInformation.of(RowData.class));
    }

    /** The {@code _values} map of a row (field 1), in its order, as Java strings. */
    private static Map<String, String> texts(RowData row) {
        MapData map = row.getMap(1);
        Map<String, String> texts = new LinkedHashMap<>();
        for (int i = 0; i < map.size(); i++) {
            texts.put(
                    map.keyArray().getString(i).toString(),
                    map.valueArray().isNullAt(i) ? null : map.valueArray().getString(i).toString());
        }
        return texts;
    }

    private static ColumnChange put(String name, CellValue value) {
        return new ColumnChange(name, ColumnOperation.PUT, value, 0);
    }

    private static ChangeRecord change(ChangeRecord.Action action, ColumnChange... columns) {
        return new ChangeRecord(
                action,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(7))),
                List.of(columns),
                SequenceInfo.NONE,
                "ch");
    }
}
