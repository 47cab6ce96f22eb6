package io.tablestorecdc.emulator.table;

import static io.tablestorecdc.emulator.table.TableApiITCase.col;
import static io.tablestorecdc.emulator.table.TableApiITCase.key;
import static io.tablestorecdc.emulator.table.TableApiITCase.newTable;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Write semantics the tunnel layer and the meta table rely on: listeners and write races. */
class TableWritesITCase {

    static TablestoreEmulator emulator;
    static SyncClient client;
    static final List<RowChange> changes = new CopyOnWriteArrayList<>();
    static final List<String> lifecycle = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        emulator.tables()
                .addListener(
                        new TableAccess.TableListener() {
                            @Override
                            public void onTableCreated(TableMeta meta) {
                                lifecycle.add("created " + meta.getTableName());
                            }

                            @Override
                            public void onTableDeleted(String table) {
                                lifecycle.add("deleted " + table);
                            }

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

    private static List<RowChange> changesOf(String table) {
        return changes.stream().filter(c -> c.table().equals(table)).toList();
    }

    @Test
    void listenersReceiveEveryAcknowledgedWriteInCommitOrder() {
        String table = newTable(client);
        RowPutChange put = new RowPutChange(table, key("a", 1));
        put.addColumn(col("x", 1));
        put.addColumn(col("y", 2));
        client.putRow(new PutRowRequest(put));
        RowUpdateChange update = new RowUpdateChange(table, key("a", 1));
        update.put("z", ColumnValue.fromLong(3));
        update.deleteColumn("x", 5L);
        update.deleteColumns("y");
        client.updateRow(new UpdateRowRequest(update));
        RowPutChange rejected = new RowPutChange(table, key("a", 1));
        rejected.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
        try {
            client.putRow(new PutRowRequest(rejected));
        } catch (TableStoreException expected) {
            // a failed condition produces no change
        }
        client.deleteRow(new DeleteRowRequest(new RowDeleteChange(table, key("a", 1))));

        List<RowChange> seen = changesOf(table);

        assertThat(seen)
                .extracting(RowChange::type)
                .containsExactly(
                        StreamRecord.RecordType.PUT,
                        StreamRecord.RecordType.UPDATE,
                        StreamRecord.RecordType.DELETE);
        assertThat(seen).extracting(RowChange::primaryKey).containsOnly(key("a", 1));
        assertThat(seen.get(0).columns())
                .extracting(c -> c.getColumn().getName() + ":" + c.getColumnType())
                .containsExactly("x:PUT", "y:PUT");
        assertThat(seen.get(1).columns())
                .extracting(c -> c.getColumn().getName() + ":" + c.getColumnType())
                .containsExactly("z:PUT", "x:DELETE_ONE_VERSION", "y:DELETE_ALL_VERSION");
        assertThat(seen.get(2).columns()).isEmpty();
        assertThat(seen).extracting(RowChange::commitTimeMicros).isSorted().doesNotHaveDuplicates();
        RecordColumn putX = seen.get(0).columns().get(0);
        assertThat(putX.getColumn().getTimestamp() * 1000)
                .isBetween(seen.get(0).commitTimeMicros() - 1000, seen.get(0).commitTimeMicros());
        assertThat(seen.get(1).columns().get(1).getColumn().getTimestamp()).isEqualTo(5L);
        assertThat(lifecycle).contains("created " + table);
    }

    @Test
    void batchWriteRowChangesArriveInRequestOrder() {
        String table = newTable(client);
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int i = 0; i < 5; i++) {
            RowPutChange put = new RowPutChange(table, key("k", 5 - i));
            put.addColumn(col("i", i));
            batch.addRowChange(put);
        }
        client.batchWriteRow(batch);

        assertThat(changesOf(table))
                .extracting(c -> c.primaryKey())
                .containsExactly(key("k", 5), key("k", 4), key("k", 3), key("k", 2), key("k", 1));
    }

    @Test
    void concurrentConditionalPutsOnOneKeyHaveExactlyOneWinner() throws Exception {
        String table = newTable(client);
        int threads = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 5; round++) {
                PrimaryKey contested = key("race", round);
                CyclicBarrier barrier = new CyclicBarrier(threads);
                List<Future<Boolean>> outcomes = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int writer = t;
                    outcomes.add(pool.submit(racer(table, contested, writer, barrier)));
                }
                int winners = 0;
                for (Future<Boolean> outcome : outcomes) {
                    winners += outcome.get(30, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(winners).as("winners of round %d", round).isEqualTo(1);
                long puts =
                        changesOf(table).stream()
                                .filter(c -> c.primaryKey().equals(contested))
                                .count();
                assertThat(puts).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Callable<Boolean> racer(
            String table, PrimaryKey key, int writer, CyclicBarrier barrier) {
        return () -> {
            RowPutChange put = new RowPutChange(table, key);
            put.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
            put.addColumn(col("writer", writer));
            barrier.await(30, TimeUnit.SECONDS);
            try {
                client.putRow(new PutRowRequest(put));
                return true;
            } catch (TableStoreException e) {
                if (!e.getErrorCode().equals("OTSConditionCheckFail")) {
                    throw e;
                }
                return false;
            } catch (ClientException e) {
                // The SDK can report an applied write as a closed connection (its HTTP client
                // checks the connection after the exchange may already have completed): the
                // outcome is unknown to this client, so the row tells whether this put won.
                if (!AppliedOnceWrites.reportedClosedAtAllocation(e)) {
                    throw e;
                }
                return writerOf(table, key) == writer;
            }
        };
    }

    private static long writerOf(String table, PrimaryKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key);
        criteria.setMaxVersions(1);
        Row row = client.getRow(new GetRowRequest(criteria)).getRow();
        return row == null ? -1 : row.getLatestColumn("writer").getValue().asLong();
    }

    @Test
    void deletingATableNotifiesListeners() {
        String table = newTable(client);

        client.deleteTable(
                new com.alicloud.openservices.tablestore.model.DeleteTableRequest(table));

        assertThat(lifecycle).containsSubsequence("created " + table, "deleted " + table);
        assertThat(emulator.tables().tableMeta(table)).isEmpty();
    }
}
