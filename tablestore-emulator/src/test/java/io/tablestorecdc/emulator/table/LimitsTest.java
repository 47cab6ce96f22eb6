package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.filter.CompositeColumnValueFilter;
import com.alicloud.openservices.tablestore.model.filter.Filter;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class LimitsTest {

    @Test
    void namesAreLettersDigitsAndUnderscoresFromALetterOrUnderscoreUpTo255Bytes() {
        for (String valid : List.of("t", "_", "_t0", "Orders_2024", "a".repeat(255))) {
            assertThat(Limits.validName(valid)).as(valid).isTrue();
        }
        for (String invalid :
                List.of("", "0", "3t", "-", "t-1", "T#", "a b", "é", "中文", "a".repeat(256))) {
            assertThat(Limits.validName(invalid)).as(invalid).isFalse();
        }
    }

    @Test
    void anInvalidNameIsRefusedInTheServicesWords() {
        assertRefused(() -> Limits.tableName("3t"), "Invalid table name: '3t'.");
        assertRefused(() -> Limits.columnName("#abc"), "Invalid column name: '#abc'.");
        assertRefused(() -> Limits.columnName("a b"), "Invalid column name: 'a b'.");
    }

    @Test
    void anAttributeColumnNameIsOneTo255BytesNotStartingWithAHash() throws EmulatorError {
        for (String valid :
                List.of("a b", " abc", "abc.", "$", "\n", "0c", "公司", "a".repeat(255))) {
            Limits.attributeName(valid);
        }
        for (String invalid : List.of("", "#", "#abc", "# ", "a".repeat(256), "公".repeat(86))) {
            assertRefused(
                    () -> Limits.attributeName(invalid), "Invalid column name: '" + invalid + "'.");
        }
    }

    @Test
    void aTableHasOneToFourPrimaryKeyColumns() throws EmulatorError {
        Limits.primaryKeyCount(1);
        Limits.primaryKeyCount(4);
        for (int count : new int[] {0, 5}) {
            assertRefused(
                    () -> Limits.primaryKeyCount(count),
                    "The number of primary key columns must be in range: [1, 4].");
        }
    }

    @Test
    void aPrimaryKeyStringOrBinaryHoldsAtMost1024Bytes() throws EmulatorError {
        Limits.primaryKey(key("pk_0", PrimaryKeyValue.fromString("a".repeat(1024))), true);
        Limits.primaryKey(key("pk_0", PrimaryKeyValue.fromBinary(new byte[1024])), true);

        String message =
                "The length of primary key column: 'pk_0' exceeds the MaxLength:1024 with"
                        + " CurrentLength:1025.";
        assertRefused(
                () ->
                        Limits.primaryKey(
                                key("pk_0", PrimaryKeyValue.fromString("a".repeat(1025))), true),
                message);
        assertRefused(
                () ->
                        Limits.primaryKey(
                                key("pk_0", PrimaryKeyValue.fromBinary(new byte[1025])), true),
                message);
        // UTF-8 bytes count, not characters: 513 two-byte characters are 1026 bytes.
        assertRefused(
                () ->
                        Limits.primaryKey(
                                key("pk_0", PrimaryKeyValue.fromString("é".repeat(513))), true),
                "The length of primary key column: 'pk_0' exceeds the MaxLength:1024 with"
                        + " CurrentLength:1026.");
    }

    @Test
    void aRowKeyCannotHoldInfMinOrInfMaxButARangeBoundCan() throws EmulatorError {
        assertRefused(
                () -> Limits.primaryKey(key("pk", PrimaryKeyValue.INF_MIN), true),
                "VT_INF_MIN is an invalid type for the primary key.");
        assertRefused(
                () -> Limits.primaryKey(key("pk", PrimaryKeyValue.INF_MAX), true),
                "VT_INF_MAX is an invalid type for the primary key.");
        Limits.primaryKey(key("pk", PrimaryKeyValue.INF_MAX), false);
    }

    @Test
    void aValueHoldsAtMost2MegabytesOfStringOrBinary() throws EmulatorError {
        int max = 2 * 1024 * 1024;
        Limits.cells(List.of(put("attr", ColumnValue.fromString("a".repeat(max)))));
        Limits.cells(List.of(put("attr", ColumnValue.fromBinary(new byte[max]))));

        String message =
                "The length of attribute column: 'attr' exceeds the MaxLength:2097152 with"
                        + " CurrentLength:2097153.";
        assertRefused(
                () ->
                        Limits.cells(
                                List.of(put("attr", ColumnValue.fromString("a".repeat(max + 1))))),
                message);
        assertRefused(
                () -> Limits.cells(List.of(put("attr", ColumnValue.fromBinary(new byte[max + 1])))),
                message);
    }

    @Test
    void aWriteCarriesAtMost1024CellsPutsAndDeletesAlike() throws EmulatorError {
        Limits.cells(cells(1024, RecordColumn.ColumnType.PUT));

        String message =
                "The number of attribute columns exceeds the limit, limit count: 1024, column"
                        + " count: 1025.";
        assertRefused(() -> Limits.cells(cells(1025, RecordColumn.ColumnType.PUT)), message);
        assertRefused(
                () -> Limits.cells(cells(1025, RecordColumn.ColumnType.DELETE_ALL_VERSION)),
                message);
    }

    @Test
    void aCellsTimestampLiesInZeroToInt64MaxOverAThousand() throws EmulatorError {
        long last = Long.MAX_VALUE / 1000 - 1;
        Limits.cells(
                List.of(
                        new RecordColumn(
                                new Column("c", ColumnValue.fromLong(1), last),
                                RecordColumn.ColumnType.PUT)));
        Limits.cells(
                List.of(
                        new RecordColumn(
                                new Column("c", ColumnValue.fromLong(1), 0),
                                RecordColumn.ColumnType.PUT)));

        assertRefused(
                () ->
                        Limits.cells(
                                List.of(
                                        new RecordColumn(
                                                new Column("c", ColumnValue.fromLong(1), last + 1),
                                                RecordColumn.ColumnType.PUT))),
                "Timestamp must be in range [0, INT64_MAX/1000).");
    }

    @Test
    void aReadNamesAtMost1024ValidColumns() throws EmulatorError {
        List<String> columns = IntStream.range(0, 1024).mapToObj(i -> "c" + i).toList();
        Limits.columnsToGet(columns);

        List<String> tooMany = new ArrayList<>(columns);
        tooMany.add("c1024");
        assertRefused(
                () -> Limits.columnsToGet(tooMany),
                "The number of columns from the request exceeds the limit, limit count: 1024,"
                        + " column count: 1025.");
        assertRefused(
                () -> Limits.columnsToGet(List.of("ok", "#no-way")),
                "Invalid column name: '#no-way'.");
        Limits.columnsToGet(List.of("no-way", "a b", "公司"));
    }

    @Test
    void aBatchWriteRowDataSizeCountsNamesValuesAndATimestampPerCell() {
        PrimaryKey key = key("pk", PrimaryKeyValue.fromString("abc"));
        List<RecordColumn> cells =
                List.of(
                        put("s", ColumnValue.fromString("日本")),
                        put("i", ColumnValue.fromLong(1)),
                        new RecordColumn(
                                new Column("gone", ColumnValue.INTERNAL_NULL_VALUE),
                                RecordColumn.ColumnType.DELETE_ALL_VERSION));

        // key 2 + 3; cells (1 + 6 + 8) + (1 + 8 + 8) + (4 + 8).
        assertThat(Limits.dataSize(key, cells)).isEqualTo(5 + 15 + 17 + 12);
        assertThat(Limits.dataSize(key, List.of())).isEqualTo(5);
    }

    @Test
    void aPutRowOrUpdateRowCarriesAtMostFourMegabytesCountedAsABatchWriteRow()
            throws EmulatorError {
        PrimaryKey key = key("pk", PrimaryKeyValue.fromString("a"));
        // 3 for the key, 1 + 8 for the name "v" and the timestamp.
        int fits = 4 * 1024 * 1024 - 3 - 9;
        Limits.requestSize(
                "PutRow", key, List.of(put("v", ColumnValue.fromBinary(new byte[fits]))));

        assertRefused(
                () ->
                        Limits.requestSize(
                                "UpdateRow",
                                key,
                                List.of(put("v", ColumnValue.fromBinary(new byte[fits + 1])))),
                "The total data size of UpdateRow request exceeds the limit, limit size: 4194304,"
                        + " data size: 4194305.");
    }

    @Test
    void aFilterHoldsAtMost32ConditionsCompositeOnesIncluded() throws EmulatorError {
        RowFilter.parse(
                OTSProtocolBuilder.buildFilter(
                        flat(CompositeColumnValueFilter.LogicOperator.AND, 31)));

        String message = "The count of filter exceeds the max: 32.";
        assertRefused(
                () ->
                        RowFilter.parse(
                                OTSProtocolBuilder.buildFilter(
                                        flat(CompositeColumnValueFilter.LogicOperator.OR, 32))),
                message);
        // A chain of NOTs: 32 conditions pass, 33 do not, however deep.
        RowFilter.parse(OTSProtocolBuilder.buildFilter(notChain(32)));
        assertRefused(() -> RowFilter.parse(OTSProtocolBuilder.buildFilter(notChain(33))), message);
        // The count is checked before the shape: a NOT with 40 sub-conditions is too many.
        assertRefused(
                () ->
                        RowFilter.parse(
                                OTSProtocolBuilder.buildFilter(
                                        flat(CompositeColumnValueFilter.LogicOperator.NOT, 40))),
                message);
    }

    @Test
    void aCompositeFilterNeedsOneSubConditionForNotAndTwoOrMoreForAndOr() {
        assertRefused(
                () ->
                        RowFilter.parse(
                                OTSProtocolBuilder.buildFilter(
                                        flat(CompositeColumnValueFilter.LogicOperator.AND, 1))),
                "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
        assertRefused(
                () ->
                        RowFilter.parse(
                                OTSProtocolBuilder.buildFilter(
                                        flat(CompositeColumnValueFilter.LogicOperator.OR, 1))),
                "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
        assertRefused(
                () ->
                        RowFilter.parse(
                                OTSProtocolBuilder.buildFilter(
                                        flat(CompositeColumnValueFilter.LogicOperator.NOT, 2))),
                "Invalid NOT operator: the number of sub-filters must be 1.");
    }

    @Test
    void aFiltersValueHoldsAtMost2Megabytes() {
        SingleColumnValueFilter big =
                new SingleColumnValueFilter(
                        "Column",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromString("a".repeat(2 * 1024 * 1024 + 1)));

        assertRefused(
                () -> RowFilter.parse(OTSProtocolBuilder.buildFilter(big)),
                "The length of attribute column: 'Column' exceeds the MaxLength:2097152 with"
                        + " CurrentLength:2097153.");
    }

    @Test
    void partitionRangesAreCheckedAsTheServiceChecksThem() {
        assertThatCode(
                        () ->
                                Partitions.check(
                                        create(OtsInternalApi.PrimaryKeyType.INTEGER, longs(9))))
                .doesNotThrowAnyException();
        assertRefused(
                () -> Partitions.check(create(OtsInternalApi.PrimaryKeyType.INTEGER, longs(10))),
                "The count of partitions cannot be greater than 10");
        assertRefused(
                () ->
                        Partitions.check(
                                create(
                                        OtsInternalApi.PrimaryKeyType.INTEGER,
                                        List.of(PrimaryKeyValue.fromLong(Long.MIN_VALUE)))),
                "The value of partition range can not be INT64_MIN or INT64_MAX.");
        assertRefused(
                () ->
                        Partitions.check(
                                create(
                                        OtsInternalApi.PrimaryKeyType.STRING,
                                        List.of(PrimaryKeyValue.fromLong(3)))),
                "The value type of partition does not match with primary key.");
        assertRefused(
                () ->
                        Partitions.check(
                                create(
                                        OtsInternalApi.PrimaryKeyType.STRING,
                                        List.of(PrimaryKeyValue.fromString("")))),
                "The value of partition range can not be empty string.");
        assertRefused(
                () ->
                        Partitions.check(
                                create(
                                        OtsInternalApi.PrimaryKeyType.BINARY,
                                        List.of(PrimaryKeyValue.fromBinary(new byte[0])))),
                "The value of partition range can not be empty binary.");
    }

    private static void assertRefused(ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        EmulatorError.class,
                        e -> {
                            assertThat(e.code()).isEqualTo("OTSParameterInvalid");
                            assertThat(e.httpStatus()).isEqualTo(400);
                        })
                .hasMessage(message);
    }

    private static PrimaryKey key(String name, PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn(name, value).build();
    }

    private static RecordColumn put(String name, ColumnValue value) {
        return new RecordColumn(new Column(name, value), RecordColumn.ColumnType.PUT);
    }

    private static List<RecordColumn> cells(int count, RecordColumn.ColumnType type) {
        return IntStream.range(0, count)
                .mapToObj(
                        i ->
                                type == RecordColumn.ColumnType.PUT
                                        ? put("c" + i, ColumnValue.fromLong(i))
                                        : new RecordColumn(
                                                new Column(
                                                        "c" + i, ColumnValue.INTERNAL_NULL_VALUE),
                                                type))
                .toList();
    }

    /** One composite condition over {@code parts} single ones: {@code parts + 1} conditions. */
    static CompositeColumnValueFilter flat(
            CompositeColumnValueFilter.LogicOperator operator, int parts) {
        CompositeColumnValueFilter filter = new CompositeColumnValueFilter(operator);
        for (int i = 0; i < parts; i++) {
            filter.addFilter(
                    new SingleColumnValueFilter(
                            "c" + i,
                            SingleColumnValueFilter.CompareOperator.EQUAL,
                            ColumnValue.fromLong(i)));
        }
        return filter;
    }

    /** NOT(NOT(...(c = 0))): {@code conditions} conditions, the last a single one. */
    static Filter notChain(int conditions) {
        Filter filter =
                new SingleColumnValueFilter(
                        "c",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromLong(0));
        for (int i = 1; i < conditions; i++) {
            CompositeColumnValueFilter not =
                    new CompositeColumnValueFilter(CompositeColumnValueFilter.LogicOperator.NOT);
            not.addFilter(
                    (com.alicloud.openservices.tablestore.model.filter.ColumnValueFilter) filter);
            filter = not;
        }
        return filter;
    }

    private static List<PrimaryKeyValue> longs(int count) {
        List<PrimaryKeyValue> points = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            points.add(PrimaryKeyValue.fromLong(i * 100L));
        }
        return Collections.unmodifiableList(points);
    }

    /** A CreateTable request of one primary-key column, cut at {@code points} as the SDK cuts. */
    private static OtsInternalApi.CreateTableRequest create(
            OtsInternalApi.PrimaryKeyType type, List<PrimaryKeyValue> points) {
        OtsInternalApi.CreateTableRequest.Builder request =
                OtsInternalApi.CreateTableRequest.newBuilder()
                        .setTableMeta(
                                OtsInternalApi.TableMeta.newBuilder()
                                        .setTableName("t")
                                        .addPrimaryKey(
                                                OtsInternalApi.PrimaryKeySchema.newBuilder()
                                                        .setName("pk")
                                                        .setType(type)))
                        .setReservedThroughput(
                                OtsInternalApi.ReservedThroughput.newBuilder()
                                        .setCapacityUnit(
                                                OtsInternalApi.CapacityUnit.newBuilder()
                                                        .setRead(0)
                                                        .setWrite(0)));
        PrimaryKeyValue last = PrimaryKeyValue.INF_MIN;
        for (PrimaryKeyValue point : points) {
            request.addPartitions(OTSProtocolBuilder.buildPartitionRange(last, point));
            last = point;
        }
        request.addPartitions(
                OTSProtocolBuilder.buildPartitionRange(last, PrimaryKeyValue.INF_MAX));
        return request.build();
    }
}
