package io.tablestorecdc.emulator.table;

import static io.tablestorecdc.emulator.table.TableApiITCase.errorOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.ConsumedCapacity;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The capacity units every table API answer reports, through the real SDK and its public calls
 * only, so the checks hold against the service as much as against the emulator: one unit per 4 KB
 * started of the primary key and the columns written or read (a column counts its name and value:
 * string bytes, 8 for an integer), at least one per row touched; a condition to check adds a read.
 *
 * <p>Each row here has the primary key {@code id} (a 3-character string: 2 + 3 = 5 bytes) and one
 * string column {@code v} (1 + its length), so {@link #valueFor} gives the value that makes a row
 * of an exact size.
 */
class CapacityUnitsITCase {

    private static final AtomicInteger TABLE_COUNTER = new AtomicInteger();

    private static final int KEY_BYTES = "id".length() + 3;

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
    void aSmallRowCostsOneUnitForEveryOperation() {
        String table = newTable();
        PrimaryKey key = key("r01");

        assertThat(cu(client.putRow(new PutRowRequest(put(table, key, 100))).getConsumedCapacity()))
                .isEqualTo(units(0, 1));
        assertThat(cu(getRow(table, key).getConsumedCapacity())).isEqualTo(units(1, 0));
        assertThat(cu(getRange(range(table)).getConsumedCapacity())).isEqualTo(units(1, 0));
        RowUpdateChange update = new RowUpdateChange(table, key);
        update.put("v", ColumnValue.fromString("x".repeat(50)));
        assertThat(cu(client.updateRow(new UpdateRowRequest(update)).getConsumedCapacity()))
                .isEqualTo(units(0, 1));
        assertThat(
                        cu(
                                client.deleteRow(
                                                new DeleteRowRequest(
                                                        new RowDeleteChange(table, key)))
                                        .getConsumedCapacity()))
                .isEqualTo(units(0, 1));
    }

    @Test
    void aRowOfExactlyFourKilobytesCostsOneUnitAndOneByteMoreCostsTwo() {
        String table = newTable();
        PrimaryKey fits = key("r01");
        PrimaryKey over = key("r02");

        assertThat(
                        cu(
                                client.putRow(new PutRowRequest(put(table, fits, 4096)))
                                        .getConsumedCapacity()))
                .isEqualTo(units(0, 1));
        assertThat(
                        cu(
                                client.putRow(new PutRowRequest(put(table, over, 4097)))
                                        .getConsumedCapacity()))
                .isEqualTo(units(0, 2));
        assertThat(cu(getRow(table, fits).getConsumedCapacity())).isEqualTo(units(1, 0));
        assertThat(cu(getRow(table, over).getConsumedCapacity())).isEqualTo(units(2, 0));
    }

    @Test
    void aNineKilobyteRowCostsThreeUnitsToWriteAndToRead() {
        String table = newTable();
        PrimaryKey key = key("r01");
        int nineKb = 9 * 1024;

        assertThat(
                        cu(
                                client.putRow(new PutRowRequest(put(table, key, nineKb)))
                                        .getConsumedCapacity()))
                .isEqualTo(units(0, 3));
        assertThat(cu(getRow(table, key).getConsumedCapacity())).isEqualTo(units(3, 0));
        assertThat(cu(getRange(range(table)).getConsumedCapacity())).isEqualTo(units(3, 0));
        RowUpdateChange update = new RowUpdateChange(table, key);
        update.put("v", ColumnValue.fromString(valueFor(nineKb)));
        assertThat(cu(client.updateRow(new UpdateRowRequest(update)).getConsumedCapacity()))
                .isEqualTo(units(0, 3));
    }

    @Test
    void aReadIsChargedOnTheColumnsItReturns() {
        String table = newTable();
        PrimaryKey key = key("r01");
        RowPutChange put = put(table, key, 9 * 1024);
        put.addColumn(new Column("small", ColumnValue.fromLong(1)));
        client.putRow(new PutRowRequest(put));

        SingleRowQueryCriteria onlySmall = criteria(table, key);
        onlySmall.addColumnsToGet("small");
        assertThat(cu(client.getRow(new GetRowRequest(onlySmall)).getConsumedCapacity()))
                .isEqualTo(units(1, 0));
        RangeRowQueryCriteria rangeOfSmall = range(table);
        rangeOfSmall.addColumnsToGet("small");
        assertThat(cu(getRange(rangeOfSmall).getConsumedCapacity())).isEqualTo(units(1, 0));
    }

    @Test
    void aReadOfNothingCostsOneUnit() {
        String table = newTable();

        assertThat(cu(getRow(table, key("r01")).getConsumedCapacity())).isEqualTo(units(1, 0));
        GetRangeResponse empty = getRange(range(table));
        assertThat(empty.getRows()).isEmpty();
        assertThat(cu(empty.getConsumedCapacity())).isEqualTo(units(1, 0));
    }

    @Test
    void aDeleteIsChargedOnThePrimaryKeyWhateverTheRowHeld() {
        String table = newTable();
        PrimaryKey key = key("r01");
        client.putRow(new PutRowRequest(put(table, key, 9 * 1024)));

        assertThat(
                        cu(
                                client.deleteRow(
                                                new DeleteRowRequest(
                                                        new RowDeleteChange(table, key)))
                                        .getConsumedCapacity()))
                .isEqualTo(units(0, 1));
        RowUpdateChange deleteColumn = new RowUpdateChange(table, key("r02"));
        deleteColumn.deleteColumns("v");
        assertThat(cu(client.updateRow(new UpdateRowRequest(deleteColumn)).getConsumedCapacity()))
                .as("an update that deletes a column counts the column's name only")
                .isEqualTo(units(0, 1));
    }

    @Test
    void aConditionToCheckAddsAReadUnit() {
        String table = newTable();
        PrimaryKey key = key("r01");

        RowPutChange create = put(table, key, 100);
        create.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
        assertThat(cu(client.putRow(new PutRowRequest(create)).getConsumedCapacity()))
                .isEqualTo(units(1, 1));

        RowPutChange replace = put(table, key, 9 * 1024);
        replace.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));
        assertThat(cu(client.putRow(new PutRowRequest(replace)).getConsumedCapacity()))
                .as("the check reads the primary key; the write counts the whole row")
                .isEqualTo(units(1, 3));

        RowUpdateChange update = new RowUpdateChange(table, key);
        update.put("v", ColumnValue.fromString("x"));
        update.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));
        assertThat(cu(client.updateRow(new UpdateRowRequest(update)).getConsumedCapacity()))
                .isEqualTo(units(1, 1));

        RowDeleteChange delete = new RowDeleteChange(table, key);
        delete.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));
        assertThat(cu(client.deleteRow(new DeleteRowRequest(delete)).getConsumedCapacity()))
                .isEqualTo(units(1, 1));
    }

    @Test
    void aFailedConditionIsReportedAndTheRowsBesideItKeepTheirOwnUnits() {
        String table = newTable();
        RowPutChange mustExist = put(table, key("r01"), 100);
        mustExist.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));

        assertThat(errorOf(() -> client.putRow(new PutRowRequest(mustExist))).getErrorCode())
                .isEqualTo("OTSConditionCheckFail");

        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(mustExist);
        batch.addRowChange(put(table, key("r02"), 9 * 1024));
        List<BatchWriteRowResponse.RowResult> results =
                client.batchWriteRow(batch).getRowStatus(table);

        assertThat(results.get(0).isSucceed()).isFalse();
        assertThat(results.get(0).getError().getCode()).isEqualTo("OTSConditionCheckFail");
        // The SDK keeps no capacity for a failed row (the service's answer for it is checked on
        // the wire in TableApiCapacityTest).
        assertThat(results.get(0).getConsumedCapacity()).isNull();
        assertThat(results.get(1).isSucceed()).isTrue();
        assertThat(cu(results.get(1).getConsumedCapacity())).isEqualTo(units(0, 3));
    }

    @Test
    void aRangePageIsChargedOnTheSumOfTheRowsItScanned() {
        String table = newTable();
        for (String id : List.of("r01", "r02", "r03", "r04")) {
            client.putRow(new PutRowRequest(put(table, key(id), 1500)));
        }

        // 4 x 1500 bytes = 6000: two units for the page, where row by row would be four.
        assertThat(cu(getRange(range(table)).getConsumedCapacity())).isEqualTo(units(2, 0));

        RangeRowQueryCriteria firstThree = range(table);
        firstThree.setLimit(3);
        GetRangeResponse first = getRange(firstThree);
        assertThat(first.getRows()).hasSize(3);
        assertThat(cu(first.getConsumedCapacity())).as("3 x 1500 bytes").isEqualTo(units(2, 0));
        RangeRowQueryCriteria rest = range(table);
        rest.setInclusiveStartPrimaryKey(first.getNextStartPrimaryKey());
        GetRangeResponse second = getRange(rest);
        assertThat(second.getRows()).hasSize(1);
        assertThat(cu(second.getConsumedCapacity())).as("1 x 1500 bytes").isEqualTo(units(1, 0));

        RangeRowQueryCriteria noneKept = range(table);
        noneKept.setFilter(
                new SingleColumnValueFilter(
                        "v",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromString("no such value")));
        GetRangeResponse filtered = getRange(noneKept);
        assertThat(filtered.getRows()).isEmpty();
        assertThat(cu(filtered.getConsumedCapacity()))
                .as("rows a filter drops were read all the same")
                .isEqualTo(units(2, 0));
    }

    @Test
    void batchesReportTheUnitsOfEachRow() {
        String table = newTable();
        BatchWriteRowRequest writes = new BatchWriteRowRequest();
        writes.addRowChange(put(table, key("r01"), 9 * 1024));
        writes.addRowChange(put(table, key("r02"), 100));
        writes.addRowChange(new RowDeleteChange(table, key("r03")));
        BatchWriteRowResponse written = client.batchWriteRow(writes);

        assertThat(written.isAllSucceed()).isTrue();
        assertThat(written.getRowStatus(table))
                .extracting(r -> cu(r.getConsumedCapacity()))
                .containsExactly(units(0, 3), units(0, 1), units(0, 1));

        MultiRowQueryCriteria keys = new MultiRowQueryCriteria(table);
        keys.setMaxVersions(1);
        keys.addRow(key("r01"));
        keys.addRow(key("r02"));
        keys.addRow(key("r03"));
        BatchGetRowRequest reads = new BatchGetRowRequest();
        reads.addMultiRowQueryCriteria(keys);
        BatchGetRowResponse read = client.batchGetRow(reads);

        assertThat(read.isAllSucceed()).isTrue();
        assertThat(read.getBatchGetRowResult(table))
                .extracting(r -> cu(r.getConsumedCapacity()))
                .as("a 9 KB row, a small row, a missing row")
                .containsExactly(units(3, 0), units(1, 0), units(1, 0));
    }

    private static String newTable() {
        String name = "cu" + TABLE_COUNTER.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    private static PrimaryKey key(String id) {
        assertThat(id).hasSize(3);
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    /** The value of column {@code v} that makes a row of exactly {@code rowBytes}. */
    private static String valueFor(int rowBytes) {
        return "x".repeat(rowBytes - KEY_BYTES - "v".length());
    }

    /** A put of a row of exactly {@code rowBytes}. */
    private static RowPutChange put(String table, PrimaryKey key, int rowBytes) {
        RowPutChange put = new RowPutChange(table, key);
        put.addColumn(new Column("v", ColumnValue.fromString(valueFor(rowBytes))));
        return put;
    }

    private static SingleRowQueryCriteria criteria(String table, PrimaryKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key);
        criteria.setMaxVersions(1);
        return criteria;
    }

    private static com.alicloud.openservices.tablestore.model.GetRowResponse getRow(
            String table, PrimaryKey key) {
        return client.getRow(new GetRowRequest(criteria(table, key)));
    }

    private static RangeRowQueryCriteria range(String table) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(table);
        criteria.setMaxVersions(1);
        criteria.setInclusiveStartPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                        .build());
        criteria.setExclusiveEndPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                        .build());
        return criteria;
    }

    private static GetRangeResponse getRange(RangeRowQueryCriteria criteria) {
        return client.getRange(new GetRangeRequest(criteria));
    }

    private static String units(int read, int write) {
        return "read " + read + " / write " + write;
    }

    private static String cu(ConsumedCapacity consumed) {
        return units(
                consumed.getCapacityUnit().getReadCapacityUnit(),
                consumed.getCapacityUnit().getWriteCapacityUnit());
    }
}
