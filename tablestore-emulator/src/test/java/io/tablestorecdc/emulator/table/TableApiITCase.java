package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.TimeseriesClient;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableResponse;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.PutRowResponse;
import com.alicloud.openservices.tablestore.model.ReturnType;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.condition.CompositeColumnValueCondition;
import com.alicloud.openservices.tablestore.model.condition.SingleColumnValueCondition;
import com.alicloud.openservices.tablestore.model.search.ListSearchIndexRequest;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Table API rows and tables through the real SDK SyncClient with its default configuration. */
class TableApiITCase {

    private static final AtomicInteger TABLE_COUNTER = new AtomicInteger();

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

    /** Creates a table with primary key (pk STRING, n INTEGER). */
    static String newTable(SyncClient client) {
        String name = "t" + TABLE_COUNTER.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("pk", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    static PrimaryKey key(String pk, long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString(pk))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .build();
    }

    static void put(String table, PrimaryKey key, Column... columns) {
        RowPutChange change = new RowPutChange(table, key);
        for (Column c : columns) {
            change.addColumn(c);
        }
        client.putRow(new PutRowRequest(change));
    }

    static Row get(String table, PrimaryKey key, String... columns) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key);
        criteria.setMaxVersions(1);
        criteria.addColumnsToGet(columns);
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    static Column col(String name, long value) {
        return new Column(name, ColumnValue.fromLong(value));
    }

    static TableStoreException errorOf(Runnable call) {
        try {
            call.run();
        } catch (TableStoreException e) {
            return e;
        }
        throw new AssertionError("expected a TableStoreException");
    }

    @Test
    void createDescribeListAndDeleteTable() {
        String table = newTable(client);

        DescribeTableResponse described = client.describeTable(new DescribeTableRequest(table));
        assertThat(described.getTableMeta().getTableName()).isEqualTo(table);
        assertThat(described.getTableMeta().getPrimaryKeyList())
                .extracting(s -> s.getName() + ":" + s.getType())
                .containsExactly("pk:STRING", "n:INTEGER");
        assertThat(described.getTableOptions().getTimeToLive()).isEqualTo(-1);
        assertThat(described.getTableOptions().getMaxVersions()).isEqualTo(1);
        assertThat(client.listTable().getTableNames()).contains(table);

        client.deleteTable(new DeleteTableRequest(table));
        assertThat(client.listTable().getTableNames()).doesNotContain(table);
    }

    @Test
    void searchIndexesAndTimeSeriesTablesAreListedAsNone() {
        String table = newTable(client);
        ListSearchIndexRequest indexes = new ListSearchIndexRequest();
        indexes.setTableName(table);
        assertThat(client.listSearchIndex(indexes).getIndexInfos()).isEmpty();

        TimeseriesClient timeseries =
                new TimeseriesClient(
                        emulator.endpoint(),
                        emulator.accessKeyId(),
                        emulator.accessKeySecret(),
                        emulator.instanceName());
        try {
            assertThat(timeseries.listTimeseriesTable().getTimeseriesTableMetas()).isEmpty();
        } finally {
            timeseries.shutdown();
        }
    }

    @Test
    void tableErrorsCarryTheDocumentedCodes() {
        String table = newTable(client);
        TableMeta again = new TableMeta(table);
        again.addPrimaryKeyColumn("pk", PrimaryKeyType.STRING);

        TableStoreException exists =
                errorOf(
                        () ->
                                client.createTable(
                                        new CreateTableRequest(again, new TableOptions(-1, 1))));
        TableStoreException missing =
                errorOf(() -> client.describeTable(new DescribeTableRequest("no_such_table")));
        TableStoreException putMissing =
                errorOf(() -> put("no_such_table", key("a", 1), col("c", 1)));

        assertThat(exists.getErrorCode()).isEqualTo("OTSObjectAlreadyExist");
        assertThat(exists.getHttpStatus()).isEqualTo(409);
        assertThat(missing.getErrorCode()).isEqualTo("OTSObjectNotExist");
        assertThat(missing.getHttpStatus()).isEqualTo(404);
        assertThat(putMissing.getErrorCode()).isEqualTo("OTSObjectNotExist");
    }

    @Test
    void wrongPrimaryKeySchemaIsParameterInvalid() {
        String table = newTable(client);
        PrimaryKey wrongType =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(1))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(1))
                        .build();
        PrimaryKey tooShort =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString("a"))
                        .build();

        TableStoreException typeError = errorOf(() -> put(table, wrongType, col("c", 1)));
        TableStoreException sizeError = errorOf(() -> get(table, tooShort));

        assertThat(typeError.getErrorCode()).isEqualTo("OTSInvalidPK");
        assertThat(typeError.getHttpStatus()).isEqualTo(400);
        assertThat(typeError.getMessage()).contains("Validate PK type fail");
        assertThat(sizeError.getErrorCode()).isEqualTo("OTSInvalidPK");
        assertThat(sizeError.getMessage()).contains("Validate PK size fail");
    }

    @Test
    void putThenGetRoundTripsEveryValueType() {
        String table = newTable(client);
        long before = System.currentTimeMillis();
        put(
                table,
                key("a", 1),
                new Column("s", ColumnValue.fromString("héllo")),
                new Column("i", ColumnValue.fromLong(-7)),
                new Column("d", ColumnValue.fromDouble(2.5)),
                new Column("b", ColumnValue.fromBoolean(true)),
                new Column("bin", ColumnValue.fromBinary(new byte[] {1, (byte) 0xff})),
                new Column("ts", ColumnValue.fromLong(1), 1234L));

        Row row = get(table, key("a", 1));

        assertThat(row.getPrimaryKey()).isEqualTo(key("a", 1));
        assertThat(row.getLatestColumn("s").getValue().asString()).isEqualTo("héllo");
        assertThat(row.getLatestColumn("i").getValue().asLong()).isEqualTo(-7);
        assertThat(row.getLatestColumn("d").getValue().asDouble()).isEqualTo(2.5);
        assertThat(row.getLatestColumn("b").getValue().asBoolean()).isTrue();
        assertThat(row.getLatestColumn("bin").getValue().asBinary()).containsExactly(1, 0xff);
        assertThat(row.getLatestColumn("ts").getTimestamp()).isEqualTo(1234L);
        assertThat(row.getLatestColumn("s").getTimestamp())
                .isBetween(before, System.currentTimeMillis());
    }

    @Test
    void getRowOfAMissingRowReturnsNoRow() {
        String table = newTable(client);

        assertThat(get(table, key("nothing", 0))).isNull();
    }

    @Test
    void columnsToGetReturnsOnlyTheNamedColumns() {
        String table = newTable(client);
        put(table, key("a", 1), col("x", 1), col("y", 2));

        Row onlyY = get(table, key("a", 1), "y");
        Row withKey = get(table, key("a", 1), "pk", "n", "x");

        assertThat(onlyY.getColumns()).extracting(Column::getName).containsExactly("y");
        assertThat(onlyY.getPrimaryKey()).isEqualTo(key("a", 1));
        assertThat(withKey.getPrimaryKey()).isEqualTo(key("a", 1));
        assertThat(withKey.getColumns()).extracting(Column::getName).containsExactly("x");
        assertThat(get(table, key("a", 1), "absent")).isNull();
    }

    @Test
    void updateRowPutsAndDeletesColumns() {
        String table = newTable(client);
        put(
                table,
                key("a", 1),
                new Column("keep", ColumnValue.fromLong(1), 100L),
                new Column("one", ColumnValue.fromLong(2), 200L),
                col("all", 3));

        RowUpdateChange update = new RowUpdateChange(table, key("a", 1));
        update.put("added", ColumnValue.fromString("new"));
        update.deleteColumn("one", 200L);
        update.deleteColumns("all");
        update.deleteColumn("keep", 999L);
        client.updateRow(new UpdateRowRequest(update));

        Row row = get(table, key("a", 1));
        assertThat(row.getColumns()).extracting(Column::getName).containsExactly("added", "keep");
    }

    @Test
    void updateRowCreatesAMissingRowAndDeletingItsLastColumnRemovesIt() {
        String table = newTable(client);
        RowUpdateChange create = new RowUpdateChange(table, key("u", 1));
        create.put("c", ColumnValue.fromLong(1));
        client.updateRow(new UpdateRowRequest(create));
        assertThat(get(table, key("u", 1))).isNotNull();

        RowUpdateChange clear = new RowUpdateChange(table, key("u", 1));
        clear.deleteColumns("c");
        client.updateRow(new UpdateRowRequest(clear));

        assertThat(get(table, key("u", 1))).isNull();
    }

    @Test
    void deleteRowRemovesTheRow() {
        String table = newTable(client);
        put(table, key("a", 1), col("c", 1));

        client.deleteRow(new DeleteRowRequest(new RowDeleteChange(table, key("a", 1))));

        assertThat(get(table, key("a", 1))).isNull();
    }

    @Test
    void rowExistenceConditionsFailWithConditionCheckFail() {
        String table = newTable(client);
        put(table, key("a", 1), col("c", 1));

        RowPutChange putNew = new RowPutChange(table, key("a", 1));
        putNew.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
        putNew.addColumn(col("c", 2));
        RowDeleteChange deleteExisting = new RowDeleteChange(table, key("b", 1));
        deleteExisting.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));

        TableStoreException putError = errorOf(() -> client.putRow(new PutRowRequest(putNew)));
        TableStoreException deleteError =
                errorOf(() -> client.deleteRow(new DeleteRowRequest(deleteExisting)));

        assertThat(putError.getErrorCode()).isEqualTo("OTSConditionCheckFail");
        assertThat(putError.getHttpStatus()).isEqualTo(403);
        assertThat(deleteError.getErrorCode()).isEqualTo("OTSConditionCheckFail");
        assertThat(get(table, key("a", 1)).getLatestColumn("c").getValue().asLong()).isEqualTo(1);
    }

    @Test
    void singleColumnConditionGuardsTheWrite() {
        String table = newTable(client);
        put(table, key("a", 1), col("version", 1));

        assertThat(casVersion(table, 1, 2)).isTrue();
        assertThat(casVersion(table, 1, 3)).isFalse();
        assertThat(get(table, key("a", 1)).getLatestColumn("version").getValue().asLong())
                .isEqualTo(2);
    }

    private static boolean casVersion(String table, long expected, long next) {
        RowUpdateChange update = new RowUpdateChange(table, key("a", 1));
        Condition condition = new Condition(RowExistenceExpectation.EXPECT_EXIST);
        condition.setColumnCondition(
                new SingleColumnValueCondition(
                        "version",
                        SingleColumnValueCondition.CompareOperator.EQUAL,
                        ColumnValue.fromLong(expected)));
        update.setCondition(condition);
        update.put("version", ColumnValue.fromLong(next));
        try {
            client.updateRow(new UpdateRowRequest(update));
            return true;
        } catch (TableStoreException e) {
            assertThat(e.getErrorCode()).isEqualTo("OTSConditionCheckFail");
            return false;
        }
    }

    @Test
    void compositeConditionAndPassIfMissing() {
        String table = newTable(client);
        put(table, key("a", 1), col("x", 5));

        // x > 3 AND (missing "y" passes only when passIfMissing)
        assertThat(putIf(table, condition(true))).isTrue();
        assertThat(putIf(table, condition(false))).isFalse();
    }

    private static CompositeColumnValueCondition condition(boolean passIfMissing) {
        CompositeColumnValueCondition and =
                new CompositeColumnValueCondition(CompositeColumnValueCondition.LogicOperator.AND);
        and.addCondition(
                new SingleColumnValueCondition(
                        "x",
                        SingleColumnValueCondition.CompareOperator.GREATER_THAN,
                        ColumnValue.fromLong(3)));
        and.addCondition(
                new SingleColumnValueCondition(
                                "y",
                                SingleColumnValueCondition.CompareOperator.EQUAL,
                                ColumnValue.fromLong(0))
                        .setPassIfMissing(passIfMissing));
        return and;
    }

    private static boolean putIf(String table, CompositeColumnValueCondition columnCondition) {
        RowPutChange change = new RowPutChange(table, key("a", 1));
        Condition condition = new Condition(RowExistenceExpectation.IGNORE);
        condition.setColumnCondition(columnCondition);
        change.setCondition(condition);
        change.addColumn(col("x", 5));
        try {
            client.putRow(new PutRowRequest(change));
            return true;
        } catch (TableStoreException e) {
            assertThat(e.getErrorCode()).isEqualTo("OTSConditionCheckFail");
            return false;
        }
    }

    @Test
    void putRowCanReturnThePrimaryKey() {
        String table = newTable(client);
        RowPutChange change = new RowPutChange(table, key("r", 9));
        change.setReturnType(ReturnType.RT_PK);
        change.addColumn(col("c", 1));

        PutRowResponse response = client.putRow(new PutRowRequest(change));

        assertThat(response.getRow().getPrimaryKey()).isEqualTo(key("r", 9));
    }

    @Test
    void batchWriteRowReportsPerRowResultsInOrder() {
        String table = newTable(client);
        put(table, key("exists", 1), col("c", 1));
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        RowPutChange ok1 = new RowPutChange(table, key("b1", 1));
        ok1.addColumn(col("c", 1));
        RowPutChange conflict = new RowPutChange(table, key("exists", 1));
        conflict.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
        conflict.addColumn(col("c", 2));
        RowUpdateChange ok2 = new RowUpdateChange(table, key("b2", 1));
        ok2.put("c", ColumnValue.fromLong(3));
        put(table, key("gone", 1), col("c", 1));
        RowDeleteChange ok3 = new RowDeleteChange(table, key("gone", 1));
        batch.addRowChange(ok1);
        batch.addRowChange(conflict);
        batch.addRowChange(ok2);
        batch.addRowChange(ok3);

        BatchWriteRowResponse response = client.batchWriteRow(batch);

        List<BatchWriteRowResponse.RowResult> results = response.getRowStatus(table);
        assertThat(results)
                .extracting(BatchWriteRowResponse.RowResult::isSucceed)
                .containsExactly(true, false, true, true);
        assertThat(results.get(1).getError().getCode()).isEqualTo("OTSConditionCheckFail");
        assertThat(get(table, key("b1", 1))).isNotNull();
        assertThat(get(table, key("b2", 1))).isNotNull();
        assertThat(get(table, key("exists", 1))).isNotNull();
        assertThat(get(table, key("gone", 1))).isNull();
    }

    @Test
    void anAtomicBatchWriteRowKeepsEachTableToOnePartitionKey() {
        String table = newTable(client);
        BatchWriteRowRequest spread = new BatchWriteRowRequest();
        spread.setAtomic(true);
        for (String pk : List.of("p0", "p0", "p1", "p2")) {
            RowPutChange put = new RowPutChange(table, key(pk, spread.getRowsCount()));
            put.addColumn(col("c", 1));
            spread.addRowChange(put);
        }
        List<BatchWriteRowResponse.RowResult> refused =
                client.batchWriteRow(spread).getRowStatus(table);
        assertThat(refused).hasSize(4).noneMatch(BatchWriteRowResponse.RowResult::isSucceed);
        assertThat(refused)
                .allSatisfy(
                        r -> {
                            assertThat(r.getError().getCode()).isEqualTo("OTSDataOutOfRange");
                            assertThat(r.getError().getMessage())
                                    .isEqualTo(
                                            "Data out of scope of atomic. Atomic PartKey:p0. Data"
                                                    + " PartKey:p1");
                        });
        assertThat(get(table, key("p0", 0))).isNull();

        BatchWriteRowRequest one = new BatchWriteRowRequest();
        one.setAtomic(true);
        for (long n = 0; n < 3; n++) {
            RowPutChange put = new RowPutChange(table, key("p0", n));
            put.addColumn(col("c", n));
            one.addRowChange(put);
        }
        assertThat(client.batchWriteRow(one).isAllSucceed()).isTrue();
        assertThat(get(table, key("p0", 2))).isNotNull();
    }

    @Test
    void batchWriteRowNamingOneKeyTwiceIsRefusedWhole() {
        String table = newTable(client);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        RowPutChange other = new RowPutChange(table, key("other", 1));
        other.addColumn(col("c", 1));
        RowPutChange first = new RowPutChange(table, key("twice", 1));
        first.addColumn(col("c", 1));
        RowDeleteChange second = new RowDeleteChange(table, key("twice", 1));
        batch.addRowChange(other);
        batch.addRowChange(first);
        batch.addRowChange(second);

        assertThatThrownBy(() -> client.batchWriteRow(batch))
                .isInstanceOfSatisfying(
                        TableStoreException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo("OTSParameterInvalid"))
                .hasMessageContaining("more than once");
        assertThat(get(table, key("other", 1))).as("nothing applied").isNull();
        assertThat(get(table, key("twice", 1))).isNull();
    }

    @Test
    void withRepeatedKeysAcceptedABatchAppliesEachRowInRequestOrder() {
        try (TablestoreEmulator lenient =
                TablestoreEmulator.builder().batchWriteRepeatedKeys(true).build().start()) {
            SyncClient other = lenient.newSyncClient();
            try {
                String table = newTable(other);
                BatchWriteRowRequest batch = new BatchWriteRowRequest();
                RowPutChange first = new RowPutChange(table, key("twice", 1));
                first.addColumn(col("c", 1));
                RowUpdateChange second = new RowUpdateChange(table, key("twice", 1));
                second.put(col("d", 2));
                RowPutChange third = new RowPutChange(table, key("thrice", 1));
                third.addColumn(col("c", 3));
                RowDeleteChange fourth = new RowDeleteChange(table, key("thrice", 1));
                batch.addRowChange(first);
                batch.addRowChange(second);
                batch.addRowChange(third);
                batch.addRowChange(fourth);

                assertThat(other.batchWriteRow(batch).isAllSucceed()).isTrue();
                Row row =
                        other.getRow(new GetRowRequest(criteria(table, key("twice", 1)))).getRow();
                assertThat(row.getLatestColumn("c").getValue().asLong()).isEqualTo(1);
                assertThat(row.getLatestColumn("d").getValue().asLong()).isEqualTo(2);
                assertThat(
                                other.getRow(new GetRowRequest(criteria(table, key("thrice", 1))))
                                        .getRow())
                        .isNull();
            } finally {
                other.shutdown();
            }
        }
    }

    private static SingleRowQueryCriteria criteria(String table, PrimaryKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key);
        criteria.setMaxVersions(1);
        return criteria;
    }

    @Test
    void batchWriteRowOverTheServiceLimitsIsRefusedWhole() {
        String table = newTable(client);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int i = 0; i <= TableApi.BATCH_WRITE_MAX_ROWS; i++) {
            RowPutChange put = new RowPutChange(table, key("r" + i, 1));
            put.addColumn(col("c", i));
            batch.addRowChange(put);
        }

        assertThatThrownBy(() -> client.batchWriteRow(batch))
                .isInstanceOf(TableStoreException.class)
                .hasMessage("Rows count exceeds the upper limit: 200.");
        assertThat(get(table, key("r0", 1))).isNull();
    }

    @Test
    void batchWriteRowNamingAMissingTableFailsWhole() {
        String table = newTable(client);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        RowPutChange good = new RowPutChange(table, key("g", 1));
        good.addColumn(col("c", 1));
        RowPutChange bad = new RowPutChange("no_such_table", key("g", 1));
        bad.addColumn(col("c", 1));
        batch.addRowChange(good);
        batch.addRowChange(bad);

        assertThatThrownBy(() -> client.batchWriteRow(batch))
                .isInstanceOfSatisfying(
                        TableStoreException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo("OTSObjectNotExist"))
                .hasMessage("Requested table does not exist.");
        assertThat(get(table, key("g", 1))).as("nothing applied").isNull();
    }

    @Test
    void batchGetRowReadsRowsOfSeveralTables() {
        String first = newTable(client);
        String second = newTable(client);
        put(first, key("a", 1), col("c", 1));
        put(second, key("b", 2), col("c", 2));
        BatchGetRowRequest batch = new BatchGetRowRequest();
        MultiRowQueryCriteria c1 = new MultiRowQueryCriteria(first);
        c1.setMaxVersions(1);
        c1.addRow(key("a", 1));
        c1.addRow(key("missing", 1));
        MultiRowQueryCriteria c2 = new MultiRowQueryCriteria(second);
        c2.setMaxVersions(1);
        c2.addRow(key("b", 2));
        batch.addMultiRowQueryCriteria(c1);
        batch.addMultiRowQueryCriteria(c2);

        BatchGetRowResponse response = client.batchGetRow(batch);

        assertThat(response.isAllSucceed()).isTrue();
        List<BatchGetRowResponse.RowResult> rows = response.getBatchGetRowResult(first);
        assertThat(rows.get(0).getRow().getLatestColumn("c").getValue().asLong()).isEqualTo(1);
        assertThat(rows.get(1).getRow()).isNull();
        assertThat(response.getBatchGetRowResult(second).get(0).getRow().getPrimaryKey())
                .isEqualTo(key("b", 2));
    }
}
