package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.server.Faults.ConnectionFault;
import io.tablestorecdc.emulator.table.RowChange;
import io.tablestorecdc.emulator.table.TableAccess;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A test bed's write whose call failed on the connection reaches the change stream exactly once,
 * whether the server had applied it or not. A write applied twice is two records in the stream,
 * which every exactly-once assertion downstream then counts twice: a stream reader's test fails
 * with a duplicate that no reader produced. (It happened: a client retry that took "Connection
 * closed" for a request never sent resent a delete the server had applied.)
 */
class AppliedOnceWritesITCase {

    private static final String TABLE = "applied_once";
    private static final AtomicInteger KEYS = new AtomicInteger();

    private static TablestoreEmulator emulator;
    private static SyncClient client;
    private static final List<RowChange> changes = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        emulator.tables().addListener(new Recorder());
        client = emulator.newSyncClient();
        TableMeta meta = new TableMeta(TABLE);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    @AfterEach
    void clearFaults() {
        emulator.faults().clear();
    }

    /** The write kinds of the test beds, each with the SDK action name its fault targets. */
    enum Write {
        PUT("PutRow", StreamRecord.RecordType.PUT),
        UPDATE("UpdateRow", StreamRecord.RecordType.UPDATE),
        DELETE("DeleteRow", StreamRecord.RecordType.DELETE);

        final String action;
        final StreamRecord.RecordType recorded;

        Write(String action, StreamRecord.RecordType recorded) {
            this.action = action;
            this.recorded = recorded;
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aWriteAppliedWhoseAnswerWasLostIsNotSentAgain(Write write) {
        assertWrittenOnce(write, ConnectionFault.CLOSE_BEFORE_ANSWER);
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aWriteAppliedWhoseAnswerBrokeOffIsNotSentAgain(Write write) {
        assertWrittenOnce(write, ConnectionFault.RESET_MID_RESPONSE);
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aWriteNeverDispatchedIsSentAgain(Write write) {
        assertWrittenOnce(write, ConnectionFault.CLOSE_BEFORE_DISPATCH);
    }

    private void assertWrittenOnce(Write write, ConnectionFault fault) {
        String id = "k" + KEYS.incrementAndGet();
        PrimaryKey key = key(id);
        if (write != Write.PUT) {
            AppliedOnceWrites.put(client, putChange(key, 1)); // the row the write changes
        }
        long before = emulator.server().requestCount(write.action);
        emulator.faults().add(Faults.Rule.connection(write.action, fault, 1));

        switch (write) {
            case PUT -> AppliedOnceWrites.put(client, putChange(key, 1));
            case UPDATE -> {
                RowUpdateChange change = new RowUpdateChange(TABLE, key);
                change.put(new Column("v", ColumnValue.fromLong(10)));
                AppliedOnceWrites.update(client, change);
            }
            case DELETE -> AppliedOnceWrites.delete(client, new RowDeleteChange(TABLE, key));
        }

        assertThat(changesOf(key))
                .as("change records of row %s after a %s %s", id, fault, write)
                .filteredOn(c -> c == write.recorded)
                .hasSize(1);
        assertThat(emulator.server().requestCount(write.action) - before)
                .as("%s requests sent", write.action)
                .isEqualTo(fault == ConnectionFault.CLOSE_BEFORE_DISPATCH ? 2 : 1);
        Row row = read(key);
        switch (write) {
            case PUT -> assertThat(row.getLatestColumn("v").getValue().asLong()).isEqualTo(1);
            case UPDATE -> assertThat(row.getLatestColumn("v").getValue().asLong()).isEqualTo(10);
            case DELETE -> assertThat(row).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ConnectionFault.class,
            names = {"CLOSE_BEFORE_ANSWER", "RESET_MID_RESPONSE", "CLOSE_BEFORE_DISPATCH"})
    void eachRowOfABatchWhoseCallFailedIsWrittenOnce(ConnectionFault fault) {
        PrimaryKey put = key("b" + KEYS.incrementAndGet());
        PrimaryKey updated = key("b" + KEYS.incrementAndGet());
        PrimaryKey deleted = key("b" + KEYS.incrementAndGet());
        AppliedOnceWrites.put(client, putChange(updated, 1));
        AppliedOnceWrites.put(client, putChange(deleted, 1));
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(putChange(put, 1));
        RowUpdateChange update = new RowUpdateChange(TABLE, updated);
        update.put(new Column("v", ColumnValue.fromLong(10)));
        batch.addRowChange(update);
        batch.addRowChange(new RowDeleteChange(TABLE, deleted));
        long before = emulator.server().requestCount("BatchWriteRow");
        emulator.faults().add(Faults.Rule.connection("BatchWriteRow", fault, 1));

        assertThat(AppliedOnceWrites.batch(client, batch)).as("rows refused").isEmpty();

        assertThat(changesOf(put)).containsExactly(StreamRecord.RecordType.PUT);
        assertThat(changesOf(updated))
                .containsExactly(StreamRecord.RecordType.PUT, StreamRecord.RecordType.UPDATE);
        assertThat(changesOf(deleted))
                .containsExactly(StreamRecord.RecordType.PUT, StreamRecord.RecordType.DELETE);
        assertThat(emulator.server().requestCount("BatchWriteRow") - before)
                .as("BatchWriteRow requests sent")
                .isEqualTo(fault == ConnectionFault.CLOSE_BEFORE_DISPATCH ? 2 : 1);
        assertThat(read(updated).getLatestColumn("v").getValue().asLong()).isEqualTo(10);
        assertThat(read(deleted)).isNull();
    }

    private static RowPutChange putChange(PrimaryKey key, long value) {
        RowPutChange change = new RowPutChange(TABLE, key);
        change.addColumn(new Column("v", ColumnValue.fromLong(value)));
        return change;
    }

    private static List<StreamRecord.RecordType> changesOf(PrimaryKey key) {
        return changes.stream()
                .filter(c -> c.table().equals(TABLE) && c.primaryKey().equals(key))
                .map(RowChange::type)
                .toList();
    }

    private static Row read(PrimaryKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(TABLE, key);
        criteria.setMaxVersions(1);
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    /** Every row change the table layer acknowledges, in commit order per key. */
    private static final class Recorder implements TableAccess.TableListener {
        @Override
        public void onTableCreated(TableMeta meta) {}

        @Override
        public void onTableDeleted(String table) {}

        @Override
        public void onRowChange(RowChange change) {
            changes.add(change);
        }
    }
}
