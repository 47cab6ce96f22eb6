package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.InternalClient;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.ComputeSplitsBySizeRequest;
import com.alicloud.openservices.tablestore.model.ComputeSplitsBySizeResponse;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.CreateTableRequestEx;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.UpdateTableRequest;
import com.alicloud.openservices.tablestore.model.condition.CompositeColumnValueCondition;
import com.alicloud.openservices.tablestore.model.condition.SingleColumnValueCondition;
import com.alicloud.openservices.tablestore.model.filter.CompositeColumnValueFilter;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The service's limits and validation on the table API, through the SDK's public calls: each
 * refused request gets the service's error code and message (as the SDK's functional tests against
 * the service assert them), and a request just within each limit is served. Nothing here depends on
 * the emulator: the same calls could run against the service.
 */
class LimitsITCase {

    private static final AtomicInteger TABLES = new AtomicInteger();

    static TablestoreEmulator emulator;
    static SyncClient client;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        client = emulator.newSyncClient();
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    @Test
    void tableNamesFollowTheNamingRulesOnEveryCallThatNamesATable() {
        for (String name : List.of("3t", "T#", "-", "t-1", "中文", "a".repeat(256))) {
            String message = "Invalid table name: '" + name + "'.";
            assertInvalid(() -> create(name, Map.of("pk", PrimaryKeyType.STRING)), message);
            assertInvalid(() -> client.describeTable(new DescribeTableRequest(name)), message);
            assertInvalid(() -> client.deleteTable(new DeleteTableRequest(name)), message);
            assertInvalid(() -> client.putRow(new PutRowRequest(put(name, key("a")))), message);
            assertInvalid(() -> client.getRow(new GetRowRequest(get(name, key("a")))), message);
            assertInvalid(
                    () -> client.getRange(new GetRangeRequest(range(name, key("a"), key("b")))),
                    message);
            assertInvalid(() -> client.computeSplitsBySize(splits(name)), message);
        }

        String longest = "_" + "a".repeat(254);
        create(longest, Map.of("pk", PrimaryKeyType.STRING));
        client.putRow(new PutRowRequest(put(longest, key("a"))));
        assertThat(
                        client.describeTable(new DescribeTableRequest(longest))
                                .getTableMeta()
                                .getTableName())
                .isEqualTo(longest);
    }

    @Test
    void columnNamesFollowTheNamingRules() {
        String table = table();
        for (String column : List.of("#abc", "# ", "a".repeat(256))) {
            String message = "Invalid column name: '" + column + "'.";
            RowPutChange put = new RowPutChange(table, key("a"));
            put.addColumn(column, ColumnValue.fromLong(1));
            assertInvalid(() -> client.putRow(new PutRowRequest(put)), message);

            RowUpdateChange update = new RowUpdateChange(table, key("a"));
            update.put(column, ColumnValue.fromLong(1));
            assertInvalid(() -> client.updateRow(new UpdateRowRequest(update)), message);

            SingleRowQueryCriteria get = get(table, key("a"));
            get.addColumnsToGet(column);
            assertInvalid(() -> client.getRow(new GetRowRequest(get)), message);

            SingleRowQueryCriteria filtered = get(table, key("a"));
            filtered.setFilter(
                    new SingleColumnValueFilter(
                            column,
                            SingleColumnValueFilter.CompareOperator.EQUAL,
                            ColumnValue.fromLong(1)));
            assertInvalid(() -> client.getRow(new GetRowRequest(filtered)), message);

            assertInvalid(() -> create("t_bad_pk", Map.of(column, PrimaryKeyType.STRING)), message);
        }
        // An attribute column may be named with spaces, punctuation or Chinese; a primary-key
        // column may not.
        for (String column : List.of("0c", "a b", " abc", "a.b", "公司")) {
            RowPutChange put = new RowPutChange(table, key("a"));
            put.addColumn(column, ColumnValue.fromLong(7));
            client.putRow(new PutRowRequest(put));
            assertThat(read(table, key("a")).getLatestColumn(column).getValue().asLong())
                    .isEqualTo(7);
            assertInvalid(
                    () -> create("t_bad_pk", Map.of(column, PrimaryKeyType.STRING)),
                    "Invalid column name: '" + column + "'.");
        }

        String longest = "c".repeat(255);
        RowPutChange put = new RowPutChange(table, key("a"));
        put.addColumn(longest, ColumnValue.fromLong(100));
        client.putRow(new PutRowRequest(put));
        assertThat(read(table, key("a")).getLatestColumn(longest).getValue().asLong())
                .isEqualTo(100);
    }

    @Test
    void aTableHasAtMostFourPrimaryKeyColumns() {
        Map<String, PrimaryKeyType> five = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 5; i++) {
            five.put("pk" + i, PrimaryKeyType.INTEGER);
        }
        assertInvalid(
                () -> create("t_five_keys", five),
                "The number of primary key columns must be in range: [1, 4].");
        five.remove("pk4");
        create("t_four_keys", five);
    }

    @Test
    void aPrimaryKeyValueHoldsAtMost1024Bytes() {
        String table = table();
        client.putRow(new PutRowRequest(put(table, key("k".repeat(1024)))));
        assertThat(read(table, key("k".repeat(1024)))).isNotNull();

        String message =
                "The length of primary key column: 'pk' exceeds the MaxLength:1024 with"
                        + " CurrentLength:1025.";
        PrimaryKey tooLong = key("k".repeat(1025));
        assertInvalid(() -> client.putRow(new PutRowRequest(put(table, tooLong))), message);
        assertInvalid(() -> client.getRow(new GetRowRequest(get(table, tooLong))), message);
        assertInvalid(
                () -> client.deleteRow(new DeleteRowRequest(new RowDeleteChange(table, tooLong))),
                message);
        assertInvalid(
                () -> client.getRange(new GetRangeRequest(range(table, tooLong, key("z")))),
                message);
    }

    @Test
    void aRowKeyCannotBeInfMinOrInfMax() {
        String table = table();
        PrimaryKey min =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.INF_MIN)
                        .build();
        assertInvalid(
                () -> client.putRow(new PutRowRequest(put(table, min))),
                "VT_INF_MIN is an invalid type for the primary key.");
        assertInvalid(
                () -> client.getRow(new GetRowRequest(get(table, min))),
                "VT_INF_MIN is an invalid type for the primary key.");
    }

    @Test
    void aKeyThatDoesNotMatchTheSchemaIsRefusedInTheServicesWords() {
        String table = table();
        PrimaryKey integer =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(1))
                        .build();
        PrimaryKey otherName =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("a"))
                        .build();
        PrimaryKey twoColumns =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString("a"))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(1))
                        .build();

        assertRefused(
                () -> client.putRow(new PutRowRequest(put(table, integer))),
                "OTSInvalidPK",
                "Validate PK type fail. Input: VT_INTEGER, Meta: VT_STRING.");
        assertRefused(
                () -> client.putRow(new PutRowRequest(put(table, otherName))),
                "OTSInvalidPK",
                "Validate PK name fail. Input: id, Meta: pk.");
        assertRefused(
                () -> client.getRow(new GetRowRequest(get(table, twoColumns))),
                "OTSInvalidPK",
                "Validate PK size fail. Input: 2, Meta: 1.");

        // A key of more than four columns is refused for that first, even on a missing table.
        PrimaryKeyBuilder five = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < 5; i++) {
            five.addPrimaryKeyColumn("pk_" + i, PrimaryKeyValue.fromString("v"));
        }
        for (String target : List.of(table, "no_such_table")) {
            assertRefused(
                    () -> client.putRow(new PutRowRequest(put(target, five.build()))),
                    "OTSParameterInvalid",
                    "The number of primary key columns must be in range: [1, 4].");
        }
    }

    @Test
    void anAttributeValueHoldsAtMostTwoMegabytes() {
        String table = table();
        int max = 2 * 1024 * 1024;
        RowPutChange fits = new RowPutChange(table, key("a"));
        fits.addColumn("attr", ColumnValue.fromBinary(new byte[max]));
        client.putRow(new PutRowRequest(fits));
        assertThat(read(table, key("a")).getLatestColumn("attr").getValue().asBinary())
                .hasSize(max);

        String message =
                "The length of attribute column: 'attr' exceeds the MaxLength:2097152 with"
                        + " CurrentLength:2097153.";
        RowPutChange string = new RowPutChange(table, key("b"));
        string.addColumn("attr", ColumnValue.fromString("s".repeat(max + 1)));
        assertInvalid(() -> client.putRow(new PutRowRequest(string)), message);
        RowUpdateChange binary = new RowUpdateChange(table, key("b"));
        binary.put("attr", ColumnValue.fromBinary(new byte[max + 1]));
        assertInvalid(() -> client.updateRow(new UpdateRowRequest(binary)), message);
        assertThat(read(table, key("b"))).isNull();
    }

    @Test
    void aWriteCarriesAtMost1024ColumnsAndARowMayHoldMore() {
        String table = table();
        RowPutChange full = new RowPutChange(table, key("a"));
        RowPutChange tooWide = new RowPutChange(table, key("b"));
        RowUpdateChange deletesTooMany = new RowUpdateChange(table, key("a"));
        for (int i = 0; i < 1025; i++) {
            if (i < 1024) {
                full.addColumn(String.format("attr_%04d", i), ColumnValue.fromLong(i));
            }
            tooWide.addColumn(String.format("attr_%04d", i), ColumnValue.fromLong(i));
            deletesTooMany.deleteColumns(String.format("attr_%04d", i));
        }
        client.putRow(new PutRowRequest(full));

        String message =
                "The number of attribute columns exceeds the limit, limit count: 1024, column"
                        + " count: 1025.";
        assertInvalid(() -> client.putRow(new PutRowRequest(tooWide)), message);
        assertInvalid(() -> client.updateRow(new UpdateRowRequest(deletesTooMany)), message);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(tooWide);
        assertInvalid(() -> client.batchWriteRow(batch), message);

        // The limit is on one request: a row of 1024 columns takes one more by an update.
        RowUpdateChange oneMore = new RowUpdateChange(table, key("a"));
        oneMore.put("attr_1024", ColumnValue.fromLong(1024));
        client.updateRow(new UpdateRowRequest(oneMore));
        assertThat(read(table, key("a")).getColumns()).hasSize(1025);

        SingleRowQueryCriteria get = get(table, key("a"));
        for (int i = 0; i < 1025; i++) {
            get.addColumnsToGet(String.format("attr_%04d", i));
        }
        assertInvalid(
                () -> client.getRow(new GetRowRequest(get)),
                "The number of columns from the request exceeds the limit, limit count: 1024,"
                        + " column count: 1025.");
    }

    @Test
    void aTimestampLiesBelowInt64MaxOverAThousand() {
        String table = table();
        long tooLate = Long.MAX_VALUE / 1000;
        String message = "Timestamp must be in range [0, INT64_MAX/1000).";
        RowPutChange put = new RowPutChange(table, key("a"));
        put.addColumn(new Column("c", ColumnValue.fromLong(1), tooLate));
        assertInvalid(() -> client.putRow(new PutRowRequest(put)), message);
        RowUpdateChange update = new RowUpdateChange(table, key("a"));
        update.put(new Column("c", ColumnValue.fromLong(1), tooLate));
        assertInvalid(() -> client.updateRow(new UpdateRowRequest(update)), message);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(put);
        assertInvalid(() -> client.batchWriteRow(batch), message);

        RowPutChange latest = new RowPutChange(table, key("a"));
        latest.addColumn(new Column("c", ColumnValue.fromLong(1), tooLate - 1));
        client.putRow(new PutRowRequest(latest));
        assertThat(read(table, key("a")).getLatestColumn("c").getTimestamp())
                .isEqualTo(tooLate - 1);
    }

    @Test
    void aPutRowOrUpdateRowCarriesAtMostFourMegabytes() {
        String table = table();
        int max = 2 * 1024 * 1024;
        // "pk" (2) + "a" (1); "v1" (2) + 2 MB + 8; "v2" (2) + the rest + 8.
        int rest = 4 * 1024 * 1024 - 3 - (2 + max + 8) - (2 + 8);
        RowPutChange fits = new RowPutChange(table, key("a"));
        fits.addColumn("v1", ColumnValue.fromBinary(new byte[max]));
        fits.addColumn("v2", ColumnValue.fromBinary(new byte[rest]));
        client.putRow(new PutRowRequest(fits));

        RowPutChange over = new RowPutChange(table, key("b"));
        over.addColumn("v1", ColumnValue.fromBinary(new byte[max]));
        over.addColumn("v2", ColumnValue.fromBinary(new byte[rest + 1]));
        assertInvalid(
                () -> client.putRow(new PutRowRequest(over)),
                "The total data size of PutRow request exceeds the limit, limit size: 4194304,"
                        + " data size: 4194305.");
        RowUpdateChange update = new RowUpdateChange(table, key("b"));
        update.put("v1", ColumnValue.fromBinary(new byte[max]));
        update.put("v2", ColumnValue.fromBinary(new byte[rest + 1]));
        assertInvalid(
                () -> client.updateRow(new UpdateRowRequest(update)),
                "The total data size of UpdateRow request exceeds the limit, limit size: 4194304,"
                        + " data size: 4194305.");
        assertThat(read(table, key("b"))).isNull();
    }

    @Test
    void aBatchWriteRowCarriesAtMostFourMegabytesCountedAsTheServiceCounts() {
        String table = table();
        long now = System.currentTimeMillis();
        // Each row: "pk" (2) + "r0" (2), "v" (1) + its value + 8 for the timestamp.
        int first = 2 * 1024 * 1024;
        int second = 4 * 1024 * 1024 - 2 * 13 - first;

        BatchWriteRowRequest fits = new BatchWriteRowRequest();
        fits.addRowChange(wide(table, "r0", first, now));
        fits.addRowChange(wide(table, "r1", second, now));
        assertThat(client.batchWriteRow(fits).isAllSucceed()).isTrue();

        BatchWriteRowRequest oneByteOver = new BatchWriteRowRequest();
        oneByteOver.addRowChange(wide(table, "r2", first, now));
        oneByteOver.addRowChange(wide(table, "r3", second + 1, now));
        assertInvalid(
                () -> client.batchWriteRow(oneByteOver),
                "The total data size of BatchWriteRow request exceeds the limit, limit size:"
                        + " 4194304, data size: 4194305.");
        assertThat(read(table, key("r2"))).isNull();
    }

    @Test
    void aFilterOrConditionHoldsAtMost32Conditions() {
        String table = table();
        RowPutChange row = new RowPutChange(table, key("a"));
        row.addColumn("c0", ColumnValue.fromLong(0));
        client.putRow(new PutRowRequest(row));

        SingleRowQueryCriteria fits = get(table, key("a"));
        fits.setFilter(LimitsTest.flat(CompositeColumnValueFilter.LogicOperator.OR, 31));
        assertThat(client.getRow(new GetRowRequest(fits)).getRow()).isNotNull();

        String message = "The count of filter exceeds the max: 32.";
        SingleRowQueryCriteria tooMany = get(table, key("a"));
        tooMany.setFilter(LimitsTest.flat(CompositeColumnValueFilter.LogicOperator.OR, 32));
        assertInvalid(() -> client.getRow(new GetRowRequest(tooMany)), message);

        RangeRowQueryCriteria deep = range(table, key("a"), key("b"));
        deep.setFilter(LimitsTest.notChain(33));
        assertInvalid(() -> client.getRange(new GetRangeRequest(deep)), message);

        MultiRowQueryCriteria batch = new MultiRowQueryCriteria(table);
        batch.addRow(key("a"));
        batch.setMaxVersions(1);
        batch.setFilter(LimitsTest.flat(CompositeColumnValueFilter.LogicOperator.AND, 40));
        BatchGetRowRequest batchGet = new BatchGetRowRequest();
        batchGet.addMultiRowQueryCriteria(batch);
        assertInvalid(() -> client.batchGetRow(batchGet), message);

        // A conditional write's column condition counts the same way.
        CompositeColumnValueCondition condition =
                new CompositeColumnValueCondition(CompositeColumnValueCondition.LogicOperator.OR);
        for (int i = 0; i < 32; i++) {
            condition.addCondition(
                    new SingleColumnValueCondition(
                            "c" + i,
                            SingleColumnValueCondition.CompareOperator.EQUAL,
                            ColumnValue.fromLong(i)));
        }
        RowUpdateChange update = new RowUpdateChange(table, key("a"));
        update.put("c1", ColumnValue.fromLong(1));
        update.setCondition(conditionOn(condition));
        assertInvalid(() -> client.updateRow(new UpdateRowRequest(update)), message);
        assertThat(read(table, key("a")).getLatestColumn("c1")).isNull();
    }

    @Test
    void aCompositeFilterHasOneSubConditionUnderNotAndTwoOrMoreUnderAndOr() {
        String table = table();
        SingleRowQueryCriteria and = get(table, key("a"));
        and.setFilter(LimitsTest.flat(CompositeColumnValueFilter.LogicOperator.AND, 1));
        assertInvalid(
                () -> client.getRow(new GetRowRequest(and)),
                "Invalid AND/OR operator: the number of sub-filters must be more than 1.");

        SingleRowQueryCriteria not = get(table, key("a"));
        not.setFilter(LimitsTest.flat(CompositeColumnValueFilter.LogicOperator.NOT, 2));
        assertInvalid(
                () -> client.getRow(new GetRowRequest(not)),
                "Invalid NOT operator: the number of sub-filters must be 1.");
    }

    @Test
    void aRangeMustNotBeEmpty() {
        String table = table();
        RangeRowQueryCriteria forward = range(table, key("a"), key("a"));
        assertInvalid(
                () -> client.getRange(new GetRangeRequest(forward)),
                "Begin key must less than end key in FORWARD");

        RangeRowQueryCriteria backward = range(table, key("a"), key("a"));
        backward.setDirection(Direction.BACKWARD);
        assertInvalid(
                () -> client.getRange(new GetRangeRequest(backward)),
                "Begin key must more than end key in BACKWARD");
    }

    @Test
    void aCreateTableMayAskForUpToTenPartitions() throws Exception {
        InternalClient internal =
                new InternalClient(
                        emulator.endpoint(),
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        emulator.instanceName());
        try {
            TableMeta meta = new TableMeta("t_partitioned");
            meta.addPrimaryKeyColumn("pk", PrimaryKeyType.INTEGER);
            CreateTableRequestEx tooMany = new CreateTableRequestEx(meta, new TableOptions(-1, 1));
            tooMany.setSplitPoints(points(10));
            assertThatThrownBy(() -> internal.createTableEx(tooMany, null).get())
                    .hasCauseInstanceOf(TableStoreException.class)
                    .cause()
                    .hasMessage("The count of partitions cannot be greater than 10");

            CreateTableRequestEx ten = new CreateTableRequestEx(meta, new TableOptions(-1, 1));
            ten.setSplitPoints(points(9));
            internal.createTableEx(ten, null).get();
            RowPutChange put =
                    new RowPutChange(
                            "t_partitioned",
                            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                    .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(150))
                                    .build());
            client.putRow(new PutRowRequest(put));
            // DescribeTable reports where the partitions start.
            assertThat(
                            client.describeTable(new DescribeTableRequest("t_partitioned"))
                                    .getShardSplits())
                    .extracting(k -> k.getPrimaryKeyColumn(0).getValue())
                    .containsExactlyElementsOf(points(9));
            assertThat(client.describeTable(new DescribeTableRequest(table())).getShardSplits())
                    .isEmpty();

            // Later key columns of a split start at INF_MIN; a split point is at most 64 bytes.
            TableMeta strings = new TableMeta("t_split_strings");
            strings.addPrimaryKeyColumn("region", PrimaryKeyType.STRING);
            strings.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
            CreateTableRequestEx tooLong =
                    new CreateTableRequestEx(strings, new TableOptions(-1, 1));
            tooLong.setSplitPoints(List.of(PrimaryKeyValue.fromString("b".repeat(65))));
            assertThatThrownBy(() -> internal.createTableEx(tooLong, null).get())
                    .cause()
                    .hasMessage(
                            "The value of partition range exceeds the MaxLength:64 with"
                                    + " CurrentLength:65.");
            CreateTableRequestEx regions =
                    new CreateTableRequestEx(strings, new TableOptions(-1, 1));
            regions.setSplitPoints(
                    List.of(PrimaryKeyValue.fromString("eu"), PrimaryKeyValue.fromString("us")));
            internal.createTableEx(regions, null).get();
            assertThat(
                            client.describeTable(new DescribeTableRequest("t_split_strings"))
                                    .getShardSplits())
                    .extracting(
                            k ->
                                    k.getPrimaryKeyColumn(0).getValue().asString()
                                            + "/"
                                            + k.getPrimaryKeyColumn(1).getValue())
                    .containsExactly("eu/INF_MIN", "us/INF_MIN");
        } finally {
            internal.shutdown();
        }
    }

    @Test
    void aMissingTableIsNamedInTheServicesWordsOnEveryCall() {
        String missing = "no_such_table";
        String message = "Requested table does not exist.";
        List<ThrowingCallable> calls =
                List.of(
                        () -> client.describeTable(new DescribeTableRequest(missing)),
                        () -> client.deleteTable(new DeleteTableRequest(missing)),
                        () -> {
                            UpdateTableRequest update = new UpdateTableRequest(missing);
                            update.setTableOptionsForUpdate(new TableOptions(-1));
                            client.updateTable(update);
                        },
                        () -> client.putRow(new PutRowRequest(put(missing, key("a")))),
                        () -> client.getRow(new GetRowRequest(get(missing, key("a")))),
                        () -> {
                            RowUpdateChange update = new RowUpdateChange(missing, key("a"));
                            update.put("c", ColumnValue.fromLong(1));
                            client.updateRow(new UpdateRowRequest(update));
                        },
                        () ->
                                client.deleteRow(
                                        new DeleteRowRequest(
                                                new RowDeleteChange(missing, key("a")))),
                        () ->
                                client.getRange(
                                        new GetRangeRequest(range(missing, key("a"), key("b")))),
                        () -> {
                            BatchWriteRowRequest batch = new BatchWriteRowRequest();
                            batch.addRowChange(put(missing, key("a")));
                            client.batchWriteRow(batch);
                        },
                        () -> client.computeSplitsBySize(splits(missing)));
        for (ThrowingCallable call : calls) {
            assertRefused(call, "OTSObjectNotExist", message);
        }

        MultiRowQueryCriteria rows = new MultiRowQueryCriteria(missing);
        rows.addRow(key("a"));
        rows.setMaxVersions(1);
        BatchGetRowRequest batchGet = new BatchGetRowRequest();
        batchGet.addMultiRowQueryCriteria(rows);
        BatchGetRowResponse.RowResult failed = client.batchGetRow(batchGet).getFailedRows().get(0);
        assertThat(failed.getError().getCode()).isEqualTo("OTSObjectNotExist");
        assertThat(failed.getError().getMessage()).isEqualTo(message);
    }

    @Test
    void splitsOfAnEmptyTableAreOneSplitAndTheSizesMustBePositive() {
        String table = table();
        ComputeSplitsBySizeResponse empty = client.computeSplitsBySize(splits(table));
        assertThat(empty.getSplits()).hasSize(1);
        assertThat(empty.getSplits().get(0).getLowerBound().getPrimaryKeyColumn(0).getValue())
                .isEqualTo(PrimaryKeyValue.INF_MIN);
        assertThat(empty.getSplits().get(0).getUpperBound().getPrimaryKeyColumn(0).getValue())
                .isEqualTo(PrimaryKeyValue.INF_MAX);
        assertThat(empty.getConsumedCapacity().getCapacityUnit().getReadCapacityUnit())
                .isEqualTo(1);
        assertThat(empty.getConsumedCapacity().getCapacityUnit().getWriteCapacityUnit())
                .isEqualTo(0);

        ComputeSplitsBySizeRequest zero = new ComputeSplitsBySizeRequest();
        zero.setTableName(table);
        zero.setSplitSizeIn100MB(0);
        assertInvalid(
                () -> client.computeSplitsBySize(zero), "The split_size should be greater than 0.");
        ComputeSplitsBySizeRequest noUnit = new ComputeSplitsBySizeRequest();
        noUnit.setTableName(table);
        noUnit.setSplitSizeInByte(1000, 0);
        assertInvalid(
                () -> client.computeSplitsBySize(noUnit),
                "The split_size_unit_in_byte should be greater equal than: 1048576");
    }

    private static void assertInvalid(ThrowingCallable call, String message) {
        assertRefused(call, "OTSParameterInvalid", message);
    }

    private static void assertRefused(ThrowingCallable call, String code, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        TableStoreException.class,
                        e -> assertThat(e.getErrorCode()).as(message).isEqualTo(code))
                .hasMessage(message);
    }

    /** A new table with one STRING primary-key column "pk". */
    private static String table() {
        String name = "limits_" + TABLES.incrementAndGet();
        create(name, Map.of("pk", PrimaryKeyType.STRING));
        return name;
    }

    private static void create(String name, Map<String, PrimaryKeyType> primaryKey) {
        TableMeta meta = new TableMeta(name);
        primaryKey.forEach(meta::addPrimaryKeyColumn);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    private static PrimaryKey key(String pk) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString(pk))
                .build();
    }

    private static RowPutChange put(String table, PrimaryKey key) {
        RowPutChange put = new RowPutChange(table, key);
        put.addColumn("c", ColumnValue.fromLong(1));
        return put;
    }

    /** A row of one binary column "v" of {@code bytes} bytes, with its timestamp set. */
    private static RowPutChange wide(String table, String pk, int bytes, long timestamp) {
        RowPutChange put = new RowPutChange(table, key(pk));
        put.addColumn(new Column("v", ColumnValue.fromBinary(new byte[bytes]), timestamp));
        return put;
    }

    private static SingleRowQueryCriteria get(String table, PrimaryKey key) {
        SingleRowQueryCriteria get = new SingleRowQueryCriteria(table, key);
        get.setMaxVersions(1);
        return get;
    }

    private static Row read(String table, PrimaryKey key) {
        return client.getRow(new GetRowRequest(get(table, key))).getRow();
    }

    private static RangeRowQueryCriteria range(String table, PrimaryKey start, PrimaryKey end) {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(start);
        range.setExclusiveEndPrimaryKey(end);
        range.setMaxVersions(1);
        return range;
    }

    private static ComputeSplitsBySizeRequest splits(String table) {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest();
        request.setTableName(table);
        request.setSplitSizeIn100MB(1);
        return request;
    }

    private static Condition conditionOn(CompositeColumnValueCondition columns) {
        Condition condition = new Condition(RowExistenceExpectation.IGNORE);
        condition.setColumnCondition(columns);
        return condition;
    }

    private static List<PrimaryKeyValue> points(int count) {
        List<PrimaryKeyValue> points = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            points.add(PrimaryKeyValue.fromLong(i * 100L));
        }
        return points;
    }
}
