package io.tablestorecdc.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import io.tablestorecdc.flink.source.deserializer.ChangeWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** {@code 'changelog.mode' = 'all'}: the rows each change means, from its before-image. */
class ChangeRowDeserializerTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {
                        new VarCharType(false, VarCharType.MAX_LENGTH),
                        new BigIntType(),
                        new VarCharType(VarCharType.MAX_LENGTH)
                    },
                    new String[] {"id", "v", "name"});

    private final ChangeRowDeserializer all =
            new ChangeRowDeserializer(
                    "orders",
                    ROW,
                    List.of(ReadableMetadata.of("op")),
                    ChangelogModeOption.ALL,
                    TypeInformation.of(RowData.class));

    @Test
    void anUpdateOfAnExistingRowIsItsOldRowThenTheOldRowWithTheUpdateApplied() throws Exception {
        List<String> rows =
                rows(
                        change(
                                ChangeRecord.Action.UPDATE,
                                List.of(put("v", CellValue.ofInteger(2))),
                                List.of(
                                        put("v", CellValue.ofInteger(1)),
                                        put("name", CellValue.ofString("x")))));

        assertThat(rows).containsExactly("-U(a,1,x,UPDATE)", "+U(a,2,x,UPDATE)");
    }

    @Test
    void anUpdateThatDeletesTheLastAttributeDeletesTheRow() throws Exception {
        ChangeRecord lastGone =
                change(
                        ChangeRecord.Action.UPDATE,
                        List.of(new ColumnChange("v", ColumnOperation.DELETE_ALL_VERSION, null, 0)),
                        List.of(put("v", CellValue.ofInteger(1))));
        ChangeRecord oneOfTwoGone =
                change(
                        ChangeRecord.Action.UPDATE,
                        List.of(new ColumnChange("v", ColumnOperation.DELETE_ALL_VERSION, null, 0)),
                        List.of(
                                put("v", CellValue.ofInteger(1)),
                                put("name", CellValue.ofString("x"))));

        assertThat(rows(lastGone)).containsExactly("-D(a,1,null,UPDATE)");
        assertThat(rows(oneOfTwoGone)).containsExactly("-U(a,1,x,UPDATE)", "+U(a,null,x,UPDATE)");
    }

    @Test
    void aChangeOfARowWithoutBeforeImageIsAnInsertOrAKeyOnlyDelete() throws Exception {
        assertThat(
                        rows(
                                change(
                                        ChangeRecord.Action.UPDATE,
                                        List.of(put("v", CellValue.ofInteger(5))),
                                        List.of())))
                .containsExactly("+I(a,5,null,UPDATE)");
        assertThat(
                        rows(
                                change(
                                        ChangeRecord.Action.UPDATE,
                                        List.of(
                                                new ColumnChange(
                                                        "v",
                                                        ColumnOperation.DELETE_ALL_VERSION,
                                                        null,
                                                        0)),
                                        List.of())))
                .as("deleting a column of a row that held none: nothing happened to a row")
                .isEmpty();
        assertThat(rows(change(ChangeRecord.Action.DELETE, List.of(), List.of())))
                .containsExactly("-D(a,null,null,DELETE)");
    }

    @Test
    void aPutOverAnExistingRowReplacesItWhole() throws Exception {
        assertThat(
                        rows(
                                change(
                                        ChangeRecord.Action.PUT,
                                        List.of(put("name", CellValue.ofString("y"))),
                                        List.of(
                                                put("v", CellValue.ofInteger(1)),
                                                put("name", CellValue.ofString("x"))))))
                .containsExactly("-U(a,1,x,PUT)", "+U(a,null,y,PUT)");
    }

    @Test
    void theWriterOfUpsertAndInsertOnlyRowsWritesTheDeserializersRowsStraightFromTheChange()
            throws Exception {
        List<ReadableMetadata> everyColumn =
                List.of(
                        ReadableMetadata.of("op"),
                        ReadableMetadata.of("commit_ts"),
                        ReadableMetadata.of("channel"),
                        ReadableMetadata.of("seq"),
                        ReadableMetadata.of("table_name"));
        List<ChangeRecord> changes =
                List.of(
                        change(
                                ChangeRecord.Action.PUT,
                                List.of(
                                        put("v", CellValue.ofInteger(7)),
                                        put("name", CellValue.ofString("x")),
                                        put("unknown", CellValue.ofString("y"))),
                                List.of()),
                        change(
                                ChangeRecord.Action.UPDATE,
                                List.of(
                                        new ColumnChange(
                                                "name",
                                                ColumnOperation.DELETE_ALL_VERSION,
                                                null,
                                                0)),
                                List.of()),
                        new ChangeRecord(
                                ChangeRecord.Action.DELETE,
                                List.of(
                                        new ChangeRecord.PrimaryKeyColumn(
                                                "id", CellValue.ofString("b"))),
                                List.of(),
                                SequenceInfo.NONE,
                                "p-1",
                                List.of()));

        for (ChangelogModeOption mode :
                List.of(ChangelogModeOption.UPSERT, ChangelogModeOption.INSERT_ONLY)) {
            ChangeRowDeserializer deserializer =
                    new ChangeRowDeserializer(
                            "orders", ROW, everyColumn, mode, TypeInformation.of(RowData.class));
            ChangeWriter<RowData> writer = deserializer.changeWriter().orElseThrow();
            for (ChangeRecord change : changes) {
                RecordPage.of(List.of(change)).visit(0, writer);
                List<RowData> expected = new ArrayList<>();
                deserializer.deserialize(change, collector(expected));

                assertThat(writer.action()).isEqualTo(change.action());
                assertThat(List.of(writer.finish())).as("%s %s", mode, change).isEqualTo(expected);
                assertThat(expected.get(0).getString(ROW.getFieldCount() + 4))
                        .as("table_name")
                        .hasToString("orders");
            }
        }
    }

    @Test
    void theWriterLeavesAValueThatDoesNotFitToTheDeserializerAndModeAllHasNone() {
        ChangeRowDeserializer upsert =
                new ChangeRowDeserializer(
                        "orders",
                        ROW,
                        List.of(ReadableMetadata.of("op")),
                        ChangelogModeOption.UPSERT,
                        TypeInformation.of(RowData.class));
        ChangeWriter<RowData> writer = upsert.changeWriter().orElseThrow();

        RecordPage.of(
                        List.of(
                                change(
                                        ChangeRecord.Action.PUT,
                                        List.of(put("v", CellValue.ofString("not a number"))),
                                        List.of())))
                .visit(0, writer);

        assertThat(writer.finish()).as("the deserializer names the column").isNull();
        assertThat(all.changeWriter()).as("mode all reads the before-image").isEmpty();
    }

    @Test
    void modeAllWritesTheValuesMapOfEachImage() throws Exception {
        ChangeRowDeserializer schemaFree =
                new ChangeRowDeserializer(
                        "orders",
                        RowType.of(
                                new LogicalType[] {
                                    new VarCharType(false, VarCharType.MAX_LENGTH),
                                    new MapType(
                                            new VarCharType(VarCharType.MAX_LENGTH),
                                            new VarCharType(VarCharType.MAX_LENGTH))
                                },
                                new String[] {"id", "_values"}),
                        List.of(),
                        ChangelogModeOption.ALL,
                        TypeInformation.of(RowData.class));
        List<RowData> out = new ArrayList<>();

        schemaFree.deserialize(
                change(
                        ChangeRecord.Action.UPDATE,
                        List.of(
                                put("v", CellValue.ofInteger(2)),
                                new ColumnChange(
                                        "name", ColumnOperation.DELETE_ALL_VERSION, null, 1)),
                        List.of(
                                put("v", CellValue.ofInteger(1)),
                                put("name", CellValue.ofString("x")))),
                collector(out));

        assertThat(out)
                .extracting(row -> row.getRowKind() + " " + texts(row.getMap(1)))
                .containsExactly("UPDATE_BEFORE {name=x, v=1}", "UPDATE_AFTER {v=2}");
    }

    private static Map<String, String> texts(MapData map) {
        Map<String, String> texts = new TreeMap<>();
        for (int i = 0; i < map.size(); i++) {
            texts.put(
                    map.keyArray().getString(i).toString(),
                    map.valueArray().getString(i).toString());
        }
        return texts;
    }

    private static Collector<RowData> collector(List<RowData> out) {
        return new Collector<>() {
            @Override
            public void collect(RowData row) {
                out.add(row);
            }

            @Override
            public void close() {}
        };
    }

    private List<String> rows(ChangeRecord record) throws Exception {
        List<String> out = new ArrayList<>();
        all.deserialize(
                record,
                new Collector<>() {
                    @Override
                    public void collect(RowData row) {
                        out.add(row.toString());
                    }

                    @Override
                    public void close() {}
                });
        return out;
    }

    private static ChangeRecord change(
            ChangeRecord.Action action, List<ColumnChange> columns, List<ColumnChange> before) {
        return new ChangeRecord(
                action,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString("a"))),
                columns,
                new SequenceInfo(1, 1, 0),
                "p-0",
                before);
    }

    private static ColumnChange put(String name, CellValue value) {
        return new ColumnChange(name, ColumnOperation.PUT, value, 1);
    }
}
