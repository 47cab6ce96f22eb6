package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.InternalClient;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.CreateTableRequestEx;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableResponse;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyOption;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.ReturnType;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.UpdateTableRequest;
import io.tablestorecdc.emulator.table.RowChange;
import io.tablestorecdc.emulator.table.TableAccess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With a data directory, acknowledged table mutations survive restarts and kill -9. */
class DurabilityITCase {

    @TempDir Path dataDir;

    private static PrimaryKey key(long id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromLong(id))
                .build();
    }

    private static SyncClient clientOf(String endpoint) {
        return new SyncClient(
                endpoint,
                TablestoreEmulator.DEFAULT_ACCESS_KEY_ID,
                TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET,
                TablestoreEmulator.DEFAULT_INSTANCE);
    }

    private static void createTable(SyncClient client, String name) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    private static void put(SyncClient client, String table, long id, String value) {
        RowPutChange put = new RowPutChange(table, key(id));
        put.addColumn(new Column("v", ColumnValue.fromString(value)));
        client.putRow(new PutRowRequest(put));
    }

    private static Row get(SyncClient client, String table, long id) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key(id));
        criteria.setMaxVersions(1);
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    private TablestoreEmulator startEmbedded() {
        return TablestoreEmulator.builder().dataDir(dataDir).build().start();
    }

    @Test
    void anUpdateTableSurvivesARestartAndKeepsTheRows() {
        try (TablestoreEmulator first = startEmbedded()) {
            SyncClient client = clientOf(first.endpoint());
            createTable(client, "updated");
            put(client, "updated", 1, "one");
            UpdateTableRequest update = new UpdateTableRequest("updated");
            update.setTableOptionsForUpdate(new TableOptions(86_400, 2));
            StreamSpecification stream = new StreamSpecification(true, 48);
            stream.addOriginColumnsToGet(new String[] {"v"});
            update.setStreamSpecification(stream);
            client.updateTable(update);
            put(client, "updated", 2, "two");
            client.shutdown();
        }

        try (TablestoreEmulator restarted = startEmbedded()) {
            SyncClient client = clientOf(restarted.endpoint());
            DescribeTableResponse described =
                    client.describeTable(new DescribeTableRequest("updated"));
            assertThat(described.getTableOptions().getTimeToLive()).isEqualTo(86_400);
            assertThat(described.getTableOptions().getMaxVersions()).isEqualTo(2);
            assertThat(described.getStreamDetails().isEnableStream()).isTrue();
            assertThat(described.getStreamDetails().getExpirationTime()).isEqualTo(48);
            assertThat(described.getStreamDetails().getOriginColumnsToGet()).containsExactly("v");
            assertThat(get(client, "updated", 1).getLatestColumn("v").getValue().asString())
                    .isEqualTo("one");
            assertThat(get(client, "updated", 2).getLatestColumn("v").getValue().asString())
                    .isEqualTo("two");
            client.shutdown();
        }
    }

    @Test
    void splitPointsAndAnAutoIncrementKeySurviveARestart() throws Exception {
        long seq;
        try (TablestoreEmulator first = startEmbedded()) {
            InternalClient internal =
                    new InternalClient(
                            first.endpoint(),
                            TablestoreEmulator.DEFAULT_ACCESS_KEY_ID,
                            TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET,
                            TablestoreEmulator.DEFAULT_INSTANCE);
            TableMeta meta = new TableMeta("events");
            meta.addPrimaryKeyColumn("device", PrimaryKeyType.STRING);
            meta.addPrimaryKeyColumn(
                    new PrimaryKeySchema(
                            "seq", PrimaryKeyType.INTEGER, PrimaryKeyOption.AUTO_INCREMENT));
            CreateTableRequestEx create = new CreateTableRequestEx(meta, new TableOptions(-1, 1));
            create.setSplitPoints(List.of(PrimaryKeyValue.fromString("m")));
            internal.createTableEx(create, null).get();
            internal.shutdown();
            SyncClient client = clientOf(first.endpoint());
            seq = putEvent(client, "d1");
            client.shutdown();
        }

        try (TablestoreEmulator restarted = startEmbedded()) {
            SyncClient client = clientOf(restarted.endpoint());
            DescribeTableResponse described =
                    client.describeTable(new DescribeTableRequest("events"));
            assertThat(described.getShardSplits())
                    .extracting(k -> k.getPrimaryKeyColumn(0).getValue().asString())
                    .containsExactly("m");
            assertThat(described.getTableMeta().getPrimaryKeyList().get(1).getOption())
                    .isEqualTo(PrimaryKeyOption.AUTO_INCREMENT);
            SingleRowQueryCriteria criteria =
                    new SingleRowQueryCriteria(
                            "events", eventKey("d1", PrimaryKeyValue.fromLong(seq)));
            criteria.setMaxVersions(1);
            assertThat(client.getRow(new GetRowRequest(criteria)).getRow()).isNotNull();
            assertThat(putEvent(client, "d1")).isGreaterThan(seq);
            client.shutdown();
        }
    }

    private static PrimaryKey eventKey(String device, PrimaryKeyValue seq) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("device", PrimaryKeyValue.fromString(device))
                .addPrimaryKeyColumn("seq", seq)
                .build();
    }

    /** Puts an event under an auto-increment key; returns the key's value. */
    private static long putEvent(SyncClient client, String device) {
        RowPutChange put =
                new RowPutChange("events", eventKey(device, PrimaryKeyValue.AUTO_INCREMENT));
        put.addColumn(new Column("v", ColumnValue.fromLong(1)));
        put.setReturnType(ReturnType.RT_PK);
        return client.putRow(new PutRowRequest(put))
                .getRow()
                .getPrimaryKey()
                .getPrimaryKeyColumn("seq")
                .getValue()
                .asLong();
    }

    @Test
    void restartReplaysTablesAndRowWritesThroughListeners() {
        try (TablestoreEmulator first = startEmbedded()) {
            SyncClient client = clientOf(first.endpoint());
            createTable(client, "kept");
            createTable(client, "dropped");
            put(client, "kept", 1, "one");
            put(client, "kept", 2, "two");
            RowUpdateChange update = new RowUpdateChange("kept", key(1));
            update.put("w", ColumnValue.fromLong(5), 77L);
            client.updateRow(new UpdateRowRequest(update));
            client.deleteRow(new DeleteRowRequest(new RowDeleteChange("kept", key(2))));
            client.deleteTable(new DeleteTableRequest("dropped"));
            client.shutdown();
        }

        TablestoreEmulator second = TablestoreEmulator.builder().dataDir(dataDir).build();
        List<RowChange> replayed = new ArrayList<>();
        second.tables().addListener(recorder(replayed));
        try (TablestoreEmulator restarted = second.start()) {
            SyncClient client = clientOf(restarted.endpoint());
            assertThat(client.listTable().getTableNames()).containsExactly("kept");
            Row row = get(client, "kept", 1);
            assertThat(row.getLatestColumn("v").getValue().asString()).isEqualTo("one");
            assertThat(row.getLatestColumn("w").getTimestamp()).isEqualTo(77L);
            assertThat(get(client, "kept", 2)).isNull();
            put(client, "kept", 3, "three");
            client.shutdown();
        }

        assertThat(replayed)
                .extracting(RowChange::type)
                .startsWith(
                        StreamRecord.RecordType.PUT,
                        StreamRecord.RecordType.PUT,
                        StreamRecord.RecordType.UPDATE,
                        StreamRecord.RecordType.DELETE);
        assertThat(replayed)
                .extracting(RowChange::commitTimeMicros)
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @Test
    void aTornRecordAtTheTailIsDropped() throws Exception {
        try (TablestoreEmulator first = startEmbedded()) {
            SyncClient client = clientOf(first.endpoint());
            createTable(client, "t");
            put(client, "t", 1, "one");
            client.shutdown();
        }
        Path journal = dataDir.resolve("tables.journal");
        Files.write(journal, new byte[] {0, 0, 0, 50, 1, 2, 3}, StandardOpenOption.APPEND);

        try (TablestoreEmulator restarted = startEmbedded()) {
            SyncClient client = clientOf(restarted.endpoint());
            put(client, "t", 2, "two");
            client.shutdown();
        }
        try (TablestoreEmulator again = startEmbedded()) {
            SyncClient client = clientOf(again.endpoint());
            assertThat(get(client, "t", 1)).isNotNull();
            assertThat(get(client, "t", 2)).isNotNull();
            client.shutdown();
        }
    }

    @Test
    void killMinus9OfTheStandaloneProcessLosesNothingAcknowledged() throws Exception {
        Process process = startStandalone();
        int acknowledged = 0;
        try {
            SyncClient client = clientOf(readyEndpoint(process));
            createTable(client, "k9");
            for (int i = 0; i < 50; i++) {
                put(client, "k9", i, "v" + i);
                acknowledged++;
            }
            client.shutdown();
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        Process restarted = startStandalone();
        try {
            SyncClient client = clientOf(readyEndpoint(restarted));
            for (int i = 0; i < acknowledged; i++) {
                assertThat(get(client, "k9", i)).as("row %d", i).isNotNull();
            }
            client.shutdown();
        } finally {
            restarted.destroyForcibly();
            restarted.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(acknowledged).isEqualTo(50);
    }

    private Process startStandalone() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        EmulatorMain.class.getName(),
                        "--port",
                        "0",
                        "--data-dir",
                        dataDir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static String readyEndpoint(Process process) throws Exception {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).isNotNull();
        Matcher m =
                Pattern.compile(
                                "^tablestore-emulator ready endpoint=(http://127\\.0\\.0\\.1:\\d+) instance=emulator$")
                        .matcher(line);
        assertThat(m.matches()).as("ready line: %s", line).isTrue();
        return m.group(1);
    }

    private static TableAccess.TableListener recorder(List<RowChange> sink) {
        return new TableAccess.TableListener() {
            @Override
            public void onTableCreated(TableMeta meta) {}

            @Override
            public void onTableDeleted(String table) {}

            @Override
            public void onRowChange(RowChange change) {
                sink.add(change);
            }
        };
    }
}
