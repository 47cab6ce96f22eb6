package io.tablestorecdc.emulator.table;

import static io.tablestorecdc.emulator.table.TableApiITCase.errorOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyOption;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.ReturnType;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.UpdateRowResponse;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An auto-increment primary-key column, which the server fills for a write that names {@code
 * AUTO_INCREMENT}, and atomic increments of INTEGER columns, as the service serves them.
 */
class AutoIncrementITCase {

    private static final AtomicInteger TABLES = new AtomicInteger();

    static TablestoreEmulator emulator;
    static SyncClient client;
    static final List<RowChange> changes = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        emulator.tables()
                .addListener(
                        new TableAccess.TableListener() {
                            @Override
                            public void onTableCreated(TableMeta meta) {}

                            @Override
                            public void onTableDeleted(String table) {}

                            @Override
                            public void onRowChange(RowChange change) {
                                changes.add(change);
                            }
                        });
        client = emulator.newSyncClient();
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    /** A table keyed (user STRING, seq INTEGER auto-increment). */
    private static String autoIncrementTable() {
        String name = "auto" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn(new PrimaryKeySchema("user", PrimaryKeyType.STRING));
        meta.addPrimaryKeyColumn(
                new PrimaryKeySchema(
                        "seq", PrimaryKeyType.INTEGER, PrimaryKeyOption.AUTO_INCREMENT));
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    /** A table keyed (id STRING). */
    private static String plainTable() {
        String name = "plain" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    private static PrimaryKey userKey(String user, PrimaryKeyValue seq) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("user", PrimaryKeyValue.fromString(user))
                .addPrimaryKeyColumn("seq", seq)
                .build();
    }

    private static PrimaryKey id(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    private static long seqOf(Row returned) {
        return returned.getPrimaryKey().getPrimaryKeyColumn("seq").getValue().asLong();
    }

    private static Row put(String table, String user, long v) {
        RowPutChange change =
                new RowPutChange(table, userKey(user, PrimaryKeyValue.AUTO_INCREMENT));
        change.addColumn("v", ColumnValue.fromLong(v));
        change.setReturnType(ReturnType.RT_PK);
        return client.putRow(new PutRowRequest(change)).getRow();
    }

    private static Row get(String table, PrimaryKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key);
        criteria.setMaxVersions(1);
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    @Test
    void theServerFillsTheColumnWithIncreasingValuesAndReturnsTheKey() {
        String table = autoIncrementTable();
        assertThat(
                        client.describeTable(new DescribeTableRequest(table))
                                .getTableMeta()
                                .getPrimaryKeyList()
                                .get(1)
                                .getOption())
                .isEqualTo(PrimaryKeyOption.AUTO_INCREMENT);

        long first = seqOf(put(table, "u1", 1));
        long second = seqOf(put(table, "u1", 2));
        long other = seqOf(put(table, "u2", 3));
        assertThat(second).isGreaterThan(first);
        assertThat(other).isGreaterThan(second);
        assertThat(get(table, userKey("u1", PrimaryKeyValue.fromLong(first))).getLatestColumn("v"))
                .extracting(c -> c.getValue().asLong())
                .isEqualTo(1L);

        // Two new rows of one partition key in one batch are two rows, not one named twice.
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (long v = 10; v < 12; v++) {
            RowPutChange change =
                    new RowPutChange(table, userKey("u1", PrimaryKeyValue.AUTO_INCREMENT));
            change.addColumn("v", ColumnValue.fromLong(v));
            change.setReturnType(ReturnType.RT_PK);
            batch.addRowChange(change);
        }
        BatchWriteRowResponse response = client.batchWriteRow(batch);
        assertThat(response.isAllSucceed()).isTrue();
        List<Long> seqs = new ArrayList<>();
        response.getRowStatus(table).forEach(r -> seqs.add(seqOf(r.getRow())));
        assertThat(seqs).doesNotHaveDuplicates().allMatch(s -> s > other);

        // The change stream carries the filled key, never the placeholder.
        assertThat(changes)
                .filteredOn(c -> c.table().equals(table))
                .extracting(c -> c.primaryKey().getPrimaryKeyColumn("seq").getValue().asLong())
                .containsExactly(first, second, other, seqs.get(0), seqs.get(1));
    }

    @Test
    void anUpdateOfAnExistingRowNamesItsValue() {
        String table = autoIncrementTable();
        long seq = seqOf(put(table, "u1", 1));
        RowUpdateChange update =
                new RowUpdateChange(table, userKey("u1", PrimaryKeyValue.fromLong(seq)));
        update.put("v", ColumnValue.fromLong(5));
        client.updateRow(new UpdateRowRequest(update));
        assertThat(
                        get(table, userKey("u1", PrimaryKeyValue.fromLong(seq)))
                                .getLatestColumn("v")
                                .getValue()
                                .asLong())
                .isEqualTo(5L);
    }

    @Test
    void thePlaceholderIsRefusedWhereItNamesNoNewRow() {
        String table = autoIncrementTable();
        String plain = plainTable();
        assertThat(
                        errorOf(() -> get(table, userKey("u1", PrimaryKeyValue.AUTO_INCREMENT)))
                                .getMessage())
                .contains("AUTO_INCREMENT in primary-key column 'seq' names no row");
        assertThat(
                        errorOf(
                                        () ->
                                                client.deleteRow(
                                                        new DeleteRowRequest(
                                                                new RowDeleteChange(
                                                                        table,
                                                                        userKey(
                                                                                "u1",
                                                                                PrimaryKeyValue
                                                                                        .AUTO_INCREMENT)))))
                                .getErrorCode())
                .isEqualTo("OTSParameterInvalid");
        RowPutChange onPlain = new RowPutChange(plain, id("x"));
        onPlain.addColumn("v", ColumnValue.fromLong(1));
        assertThat(
                        errorOf(
                                        () ->
                                                client.putRow(
                                                        new PutRowRequest(
                                                                new RowPutChange(
                                                                        plain,
                                                                        PrimaryKeyBuilder
                                                                                .createPrimaryKeyBuilder()
                                                                                .addPrimaryKeyColumn(
                                                                                        "id",
                                                                                        PrimaryKeyValue
                                                                                                .AUTO_INCREMENT)
                                                                                .build()))))
                                .getMessage())
                .contains("'id' is not an auto-increment column");
    }

    @Test
    void aTableTakesOneAutoIncrementIntegerColumnAfterThePartitionKey() {
        TableMeta first = new TableMeta("bad" + TABLES.incrementAndGet());
        first.addPrimaryKeyColumn(
                new PrimaryKeySchema(
                        "seq", PrimaryKeyType.INTEGER, PrimaryKeyOption.AUTO_INCREMENT));
        assertThat(
                        errorOf(
                                        () ->
                                                client.createTable(
                                                        new CreateTableRequest(
                                                                first, new TableOptions(-1, 1))))
                                .getMessage())
                .contains("partition key 'seq' cannot be an auto-increment column");

        TableMeta two = new TableMeta("bad" + TABLES.incrementAndGet());
        two.addPrimaryKeyColumn("user", PrimaryKeyType.STRING);
        two.addPrimaryKeyColumn(
                new PrimaryKeySchema("a", PrimaryKeyType.INTEGER, PrimaryKeyOption.AUTO_INCREMENT));
        two.addPrimaryKeyColumn(
                new PrimaryKeySchema("b", PrimaryKeyType.INTEGER, PrimaryKeyOption.AUTO_INCREMENT));
        assertThat(
                        errorOf(
                                        () ->
                                                client.createTable(
                                                        new CreateTableRequest(
                                                                two, new TableOptions(-1, 1))))
                                .getMessage())
                .contains("at most one auto-increment primary-key column");
    }

    private static UpdateRowResponse increment(String table, String id, String column, long by) {
        RowUpdateChange change = new RowUpdateChange(table, id(id));
        change.increment(new Column(column, ColumnValue.fromLong(by)));
        change.setReturnType(ReturnType.RT_AFTER_MODIFY);
        change.addReturnColumn(column);
        return client.updateRow(new UpdateRowRequest(change));
    }

    @Test
    void anIncrementAddsToTheNewestValueAndReturnsTheSum() {
        String table = plainTable();
        assertThat(increment(table, "a", "n", 10).getRow().getLatestColumn("n").getValue().asLong())
                .as("a missing column counts as 0")
                .isEqualTo(10L);
        assertThat(increment(table, "a", "n", -3).getRow().getLatestColumn("n").getValue().asLong())
                .isEqualTo(7L);
        assertThat(get(table, id("a")).getLatestColumn("n").getValue().asLong()).isEqualTo(7L);

        // In the change stream an increment is the value it produced.
        RowChange last = changes.get(changes.size() - 1);
        assertThat(last.table()).isEqualTo(table);
        assertThat(last.columns())
                .singleElement()
                .satisfies(
                        c -> {
                            assertThat(c.getColumnType()).isEqualTo(RecordColumn.ColumnType.PUT);
                            assertThat(c.getColumn().getValue().asLong()).isEqualTo(7L);
                        });
    }

    @Test
    void concurrentIncrementsAreNotLost() throws Exception {
        String table = plainTable();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 1; t <= 4; t++) {
                long by = t;
                done.add(
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < 25; i++) {
                                        increment(table, "hot", "n", by);
                                    }
                                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertThat(get(table, id("hot")).getLatestColumn("n").getValue().asLong())
                .isEqualTo(25L * (1 + 2 + 3 + 4));
    }

    @Test
    void aRefusedIncrementWritesNothing() {
        String table = plainTable();
        RowPutChange text = new RowPutChange(table, id("a"));
        text.addColumn("s", ColumnValue.fromString("x"));
        client.putRow(new PutRowRequest(text));
        assertThat(errorOf(() -> increment(table, "a", "s", 1)).getMessage())
                .contains("only INTEGER columns can be incremented");

        // Returned columns must be incremented ones, and only RT_AFTER_MODIFY returns columns.
        RowUpdateChange returnsAPut = new RowUpdateChange(table, id("b"));
        returnsAPut.increment(new Column("n", ColumnValue.fromLong(1)));
        returnsAPut.put("p", ColumnValue.fromLong(1));
        returnsAPut.setReturnType(ReturnType.RT_AFTER_MODIFY);
        returnsAPut.addReturnColumn("p");
        assertThat(errorOf(() -> client.updateRow(new UpdateRowRequest(returnsAPut))).getMessage())
                .contains("Return column 'p' is not incremented");
        RowUpdateChange pkWithColumns = new RowUpdateChange(table, id("b"));
        pkWithColumns.put("p", ColumnValue.fromLong(1));
        pkWithColumns.setReturnType(ReturnType.RT_PK);
        pkWithColumns.addReturnColumn("p");
        assertThat(
                        errorOf(() -> client.updateRow(new UpdateRowRequest(pkWithColumns)))
                                .getMessage())
                .contains("need ReturnType RT_AFTER_MODIFY");
        assertThat(get(table, id("b"))).isNull();
        assertThat(get(table, id("a")).getLatestColumn("s").getValue().asString()).isEqualTo("x");
    }
}
