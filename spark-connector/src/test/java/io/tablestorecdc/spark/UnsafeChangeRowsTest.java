package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.ChangeRowConverterTest.MAP;
import static io.tablestorecdc.spark.ChangeRowConverterTest.TYPED;
import static io.tablestorecdc.spark.ChangeRowConverterTest.put;
import static io.tablestorecdc.spark.ChangeRowConverterTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The direct writer gives the row the general conversion gives, or leaves the record to it. */
class UnsafeChangeRowsTest {

    private static final ColumnChange DELETE_QTY =
            new ColumnChange("qty", ColumnOperation.DELETE_ALL_VERSION, null, 0L);
    private static final ColumnChange DELETE_ZZ =
            new ColumnChange("zz", ColumnOperation.DELETE_ONE_VERSION, null, 5L);

    @Test
    void writesTheSameRowsAsTheGeneralConversion() {
        UnsafeChangeRows rows = new UnsafeChangeRows(TYPED, "orders", false);
        List<ChangeRecord> records =
                List.of(
                        record(Action.PUT, everyType()),
                        record(Action.UPDATE, List.of(put("price", CellValue.ofInteger(3)))),
                        record(Action.UPDATE, List.of(DELETE_QTY, put("other", ofString("x")))),
                        record(Action.DELETE, List.of()),
                        baseData(),
                        record(Action.PUT, List.of(put("name", ofString("ünïcode ✓")))),
                        record(Action.PUT, everyType()),
                        // The same names with other operations, then the same again: the
                        // operations map is rewritten, then copied.
                        record(Action.UPDATE, List.of(put("qty", CellValue.ofInteger(1)))),
                        record(Action.UPDATE, List.of(DELETE_QTY)),
                        record(Action.UPDATE, List.of(DELETE_QTY)),
                        record(Action.UPDATE, List.of(put("qty", CellValue.ofInteger(2)))),
                        record(Action.UPDATE, List.of(put("qty", CellValue.ofInteger(3)))),
                        record(
                                Action.UPDATE,
                                List.of(put("qty", CellValue.ofInteger(4)), DELETE_ZZ)));
        for (ChangeRecord r : records) {
            assertThat(canonical(TYPED, direct(rows, r)))
                    .as("%s", r)
                    .isEqualTo(canonical(TYPED, general(r)));
        }
        assertThat(direct(rows, records.get(0)).getUTF8String(ChangeRowConverterTest.OP - 1))
                .as("the table of every row")
                .hasToString("orders");
    }

    @Test
    void writesTheSameValuesMapAsTheGeneralConversion() {
        UnsafeChangeRows rows = new UnsafeChangeRows(MAP, "orders", false);
        List<ChangeRecord> records =
                List.of(
                        record(Action.PUT, everyType()),
                        record(Action.UPDATE, List.of(DELETE_QTY, put("price", doubleOf(-0.1)))),
                        record(
                                Action.UPDATE,
                                List.of(put("big", CellValue.ofInteger(Long.MIN_VALUE)))),
                        record(
                                Action.PUT,
                                List.of(
                                        put("nan", doubleOf(Double.NaN)),
                                        put("e", doubleOf(1e-300)))),
                        record(Action.DELETE, List.of()),
                        baseData(),
                        record(Action.PUT, everyType()));
        for (ChangeRecord r : records) {
            assertThat(canonical(MAP, direct(rows, r)))
                    .as("%s", r)
                    .isEqualTo(canonical(MAP, general(MAP, r)));
        }
        assertThat(
                        direct(
                                rows,
                                record(
                                        Action.UPDATE,
                                        List.of(put("zz", ofString("a")), DELETE_ZZ))))
                .as("a column named twice is left to the general conversion")
                .isNull();
    }

    @Test
    void withABeforeColumnAChangeWithoutABeforeImageIsWrittenAsTheGeneralConversionWritesIt() {
        OutputSchema schema = OutputSchema.inferred(OutputSchemaTest.PK, true);
        UnsafeChangeRows rows = new UnsafeChangeRows(schema, "orders", false);
        ChangeRecord plain = record(Action.UPDATE, List.of(put("qty", CellValue.ofInteger(2))));
        ChangeRecord withBefore =
                new ChangeRecord(
                        plain.action(),
                        plain.primaryKey(),
                        plain.columns(),
                        plain.sequence(),
                        plain.channelId(),
                        List.of(put("qty", CellValue.ofInteger(1)), put("name", ofString("n"))));

        assertThat(canonical(schema, direct(rows, plain)))
                .isEqualTo(canonical(schema, general(schema, plain)));
        assertThat(direct(rows, withBefore))
                .as("a before-image is left to the general conversion")
                .isNull();
        assertThat(
                        general(schema, withBefore)
                                .getMap(schema.sparkSchema().size() - 1)
                                .numElements())
                .isEqualTo(2);
    }

    @Test
    void aRowIsReusedByTheNextRecordAsSparksOwnReadersDo() {
        UnsafeChangeRows rows = new UnsafeChangeRows(TYPED, "orders", false);
        UnsafeRow first = direct(rows, record(Action.PUT, everyType()));
        UnsafeRow second = direct(rows, record(Action.DELETE, List.of()));

        assertThat(second).isSameAs(first);
        assertThat(second.getUTF8String(ChangeRowConverterTest.OP).toString()).isEqualTo("DELETE");
    }

    @Test
    void leavesToTheGeneralConversionWhatItMustNameOrCount() {
        UnsafeChangeRows rows = new UnsafeChangeRows(TYPED, "orders", true);

        assertThat(direct(rows, record(Action.PUT, List.of(put("qty", ofString("7"))))))
                .as("a value of another type")
                .isNull();
        assertThat(
                        direct(
                                rows,
                                record(
                                        Action.PUT,
                                        List.of(put("qty", CellValue.ofInteger(1L << 40))))))
                .as("an integer too large for its column")
                .isNull();
        assertThat(direct(rows, record(Action.DELETE, List.of()))).as("a delete to drop").isNull();
        assertThat(
                        direct(
                                rows,
                                record(
                                        Action.UPDATE,
                                        List.of(put("qty", CellValue.ofInteger(1)), DELETE_QTY))))
                .as("a column named twice")
                .isNull();
        assertThat(
                        direct(
                                rows,
                                record(
                                        Action.UPDATE,
                                        List.of(
                                                put("zz", ofString("a")),
                                                put("zz", ofString("b"))))))
                .as("an undeclared column named twice")
                .isNull();
        assertThat(direct(rows, record(Action.PUT, everyType())))
                .as("then a plain put")
                .isNotNull();
    }

    @Test
    void aPrimaryKeyThatIsNotTheTablesIsLeftToTheGeneralConversion() {
        UnsafeChangeRows rows = new UnsafeChangeRows(TYPED, "orders", false);
        ChangeRecord otherKey =
                new ChangeRecord(
                        Action.PUT,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString("k"))),
                        List.of(),
                        SequenceInfo.NONE,
                        "p-1");

        assertThat(direct(rows, otherKey)).isNull();
    }

    @Test
    void integersWidenAndNarrowAsInTheGeneralConversion() {
        StructType narrow =
                new StructType()
                        .add("b", DataTypes.ByteType)
                        .add("s", DataTypes.ShortType)
                        .add("l", DataTypes.LongType)
                        .add("d", DataTypes.DoubleType);
        OutputSchema schema = OutputSchema.of(OutputSchemaTest.PK, narrow);
        UnsafeChangeRows rows = new UnsafeChangeRows(schema, "orders", false);
        ChangeRecord r =
                record(
                        Action.PUT,
                        List.of(
                                put("b", CellValue.ofInteger(-128)),
                                put("s", CellValue.ofInteger(32767)),
                                put("l", CellValue.ofInteger(Long.MIN_VALUE)),
                                put("d", CellValue.ofInteger(1L << 53))));

        assertThat(canonical(schema, direct(rows, r)))
                .isEqualTo(canonical(schema, general(schema, r)));
    }

    @Test
    void rowsOfTablesOfDifferentKeysCarryEveryKeyColumnNullWhereTheTableHasNone() {
        // Tables keyed (id, n) and (n, zone): the rows carry id, n and zone.
        SourceKey union =
                SourceKey.union(
                        Map.of(
                                "orders",
                                OutputSchemaTest.PK,
                                "zones",
                                List.of(
                                        new PrimaryKeyColumn("n", CellValue.Type.INTEGER),
                                        new PrimaryKeyColumn("zone", CellValue.Type.BINARY))));
        OutputSchema schema = OutputSchema.inferred(union, false);
        UnsafeChangeRows rows = new UnsafeChangeRows(schema, "orders", false);
        ChangeRecord zoned =
                new ChangeRecord(
                        Action.PUT,
                        List.of(
                                new ChangeRecord.PrimaryKeyColumn("n", CellValue.ofInteger(3)),
                                new ChangeRecord.PrimaryKeyColumn(
                                        "zone", CellValue.ofBinary(new byte[] {9}))),
                        List.of(put("qty", CellValue.ofInteger(1))),
                        SequenceInfo.NONE,
                        "p-1");
        ChangeRecord withoutN =
                new ChangeRecord(
                        Action.PUT,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofString("k"))),
                        List.of(),
                        SequenceInfo.NONE,
                        "p-1");

        UnsafeRow written = direct(rows, zoned);
        assertThat(canonical(schema, written)).isEqualTo(canonical(schema, general(schema, zoned)));
        assertThat(schema.primaryKey()).extracting(PrimaryKeyColumn::name).hasSize(3);
        int id = schema.sparkSchema().fieldIndex("id");
        assertThat(written.isNullAt(id)).as("the column only the other table has").isTrue();
        assertThat(written.getLong(schema.sparkSchema().fieldIndex("n"))).isEqualTo(3);
        assertThat(direct(rows, record(Action.PUT, everyType()))).isNotNull();
        assertThat(direct(rows, withoutN))
                .as("a key column every table has is missing: the general way names it")
                .isNull();
    }

    private static List<ColumnChange> everyType() {
        return List.of(
                put("name", ofString("widget")),
                put("qty", CellValue.ofInteger(42)),
                put("price", CellValue.ofDouble(9.5)),
                put("ok", CellValue.ofBoolean(true)),
                put("blob", CellValue.ofBinary(new byte[] {1, 2, 3})),
                put("undeclared", ofString("ignored but listed in _column_ops")));
    }

    private static ChangeRecord baseData() {
        ChangeRecord r = record(Action.PUT, List.of(put("qty", CellValue.ofInteger(1))));
        return new ChangeRecord(
                r.action(), r.primaryKey(), r.columns(), SequenceInfo.NONE, r.channelId());
    }

    private static CellValue doubleOf(double d) {
        return CellValue.ofDouble(d);
    }

    private static CellValue ofString(String s) {
        return CellValue.ofString(s);
    }

    private static UnsafeRow direct(UnsafeChangeRows rows, ChangeRecord record) {
        RecordPage.of(List.of(record)).visit(0, rows);
        return rows.finishRow();
    }

    private static InternalRow general(ChangeRecord record) {
        return general(TYPED, record);
    }

    private static InternalRow general(OutputSchema schema, ChangeRecord record) {
        return new ChangeRowConverter(schema, "orders", false, false).convert(record).orElseThrow();
    }

    /** Both rows in the layout Spark's own projection gives, so that equal content is equal. */
    private static UnsafeRow canonical(OutputSchema schema, InternalRow row) {
        assertThat(row).isNotNull();
        return UnsafeProjection.create(schema.sparkSchema()).apply(row).copy();
    }
}
