package io.tablestorecdc.checkpoint.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.PrimaryKeyColumn;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Faults;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The writer through the real SDK against the emulator, which enforces BatchWriteRow's limits. */
class SdkTableWriteClientITCase {

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static TablestoreEmulator emulator;
    private static SyncClient raw;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        raw = emulator.newSyncClient();
    }

    @AfterAll
    static void stop() {
        raw.shutdown();
        emulator.close();
    }

    @AfterEach
    void clearFaults() {
        emulator.faults().clear();
    }

    private static String newTable() {
        String name = "write_it_" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
        meta.addPrimaryKeyColumn("name", PrimaryKeyType.STRING);
        raw.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return name;
    }

    private static SdkTableWriteClient client() {
        return SdkTableWriteClient.connect(
                new TablestoreEndpoint(
                        emulator.endpoint(),
                        emulator.instanceName(),
                        TablestoreCredentials.of(
                                emulator.accessKeyId(), emulator.accessKeySecret())));
    }

    private static RowKey key(long id) {
        return new RowKey(
                List.of(
                        new PrimaryKeyColumn("id", CellValue.ofInteger(id)),
                        new PrimaryKeyColumn("name", CellValue.ofString("n" + id))));
    }

    private static Map<String, Map<String, Object>> scan(String table) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(table);
        criteria.setInclusiveStartPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                        .addPrimaryKeyColumn("name", PrimaryKeyValue.INF_MIN)
                        .build());
        criteria.setExclusiveEndPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                        .addPrimaryKeyColumn("name", PrimaryKeyValue.INF_MAX)
                        .build());
        criteria.setMaxVersions(1);
        criteria.setDirection(Direction.FORWARD);
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (Row row : raw.getRange(new GetRangeRequest(criteria)).getRows()) {
            Map<String, Object> columns = new TreeMap<>();
            for (Column c : row.getColumns()) {
                columns.put(c.getName(), c.getValue().toString());
            }
            out.put(row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().toString(), columns);
        }
        return out;
    }

    @Test
    void putsUpdatesAndDeletesLandAsTheyWouldOneByOne() {
        String table = newTable();
        WriteCounters counters = new WriteCounters();
        try (BufferedTableWriter writer =
                new BufferedTableWriter(client(), table, WriteSettings.defaults(), counters)) {
            for (int i = 0; i < 250; i++) {
                writer.write(
                        RowWrite.put(
                                key(i),
                                Map.of("v", CellValue.ofInteger(i), "s", CellValue.ofString("a")),
                                SequenceInfo.NONE));
            }
            writer.write(
                    RowWrite.update(
                            key(1),
                            Map.of("v", CellValue.ofInteger(100)),
                            Set.of("s"),
                            SequenceInfo.NONE));
            writer.write(RowWrite.delete(key(2), SequenceInfo.NONE));
            writer.write(
                    RowWrite.put(key(2), Map.of("v", CellValue.ofInteger(-2)), SequenceInfo.NONE));
            writer.write(RowWrite.delete(key(3), SequenceInfo.NONE));
            writer.flush();
        }
        Map<String, Map<String, Object>> rows = scan(table);
        assertThat(rows).hasSize(249).doesNotContainKey("3");
        assertThat(rows.get("1")).containsExactly(Map.entry("v", "100"));
        assertThat(rows.get("2")).containsExactly(Map.entry("v", "-2"));
        assertThat(rows.get("249")).containsEntry("s", "a").containsEntry("v", "249");
        assertThat(counters.requests()).isEqualTo(2);
    }

    @Test
    void theCapacityUnitsTheServiceReportsAreCounted() {
        String table = newTable();
        WriteCounters counters = new WriteCounters();
        try (BufferedTableWriter writer =
                new BufferedTableWriter(client(), table, WriteSettings.defaults(), counters)) {
            for (int i = 0; i < 3; i++) {
                writer.write(
                        RowWrite.put(
                                key(i), Map.of("v", CellValue.ofInteger(i)), SequenceInfo.NONE));
            }
            // A row of about 9 KB: the service charges one unit per started 4 KB.
            writer.write(
                    RowWrite.put(
                            key(3),
                            Map.of("s", CellValue.ofString("x".repeat(9 * 1024))),
                            SequenceInfo.NONE));
            writer.flush();
        }
        assertThat(counters.writeCapacityUnits()).isEqualTo(3 + 3);
    }

    @Test
    void aRequestTheServerFailedIsSentAgain() {
        String table = newTable();
        emulator.faults().add(Faults.Rule.error("BatchWriteRow", "OTSInternalServerError", 500, 1));
        WriteCounters counters = new WriteCounters();
        try (BufferedTableWriter writer =
                new BufferedTableWriter(client(), table, WriteSettings.defaults(), counters)) {
            writer.write(
                    RowWrite.put(key(1), Map.of("v", CellValue.ofInteger(1)), SequenceInfo.NONE));
            writer.flush();
        }
        assertThat(scan(table)).containsOnlyKeys("1");
        assertThat(counters.retries()).isEqualTo(1);
    }

    @Test
    void aMissingTableFailsWithTheServicesCodeAndTheFix() {
        try (BufferedTableWriter writer =
                new BufferedTableWriter(
                        client(), "no_such_table", WriteSettings.defaults(), new WriteCounters())) {
            writer.write(
                    RowWrite.put(key(1), Map.of("v", CellValue.ofInteger(1)), SequenceInfo.NONE));
            assertThatThrownBy(writer::flush)
                    .isInstanceOf(TablestoreWriteException.class)
                    .hasMessageContaining("table no_such_table")
                    .hasMessageContaining("OTSObjectNotExist")
                    .hasMessageContaining("create it, or check table.name");
        }
    }

    @Test
    void aRowOfTheWrongKeyTypeIsRefusedNamingTheRow() {
        String table = newTable();
        RowKey wrong =
                new RowKey(
                        List.of(
                                new PrimaryKeyColumn("id", CellValue.ofString("one")),
                                new PrimaryKeyColumn("name", CellValue.ofString("x"))));
        try (BufferedTableWriter writer =
                new BufferedTableWriter(
                        client(), table, WriteSettings.defaults(), new WriteCounters())) {
            writer.write(RowWrite.put(wrong, Map.of(), SequenceInfo.NONE));
            assertThatThrownBy(writer::flush)
                    .isInstanceOf(TablestoreWriteException.class)
                    .hasMessageContaining("OTSInvalidPK")
                    .hasMessageContaining("id='one'")
                    .hasMessageContaining("send every primary-key column of the table");
        }
    }

    @Test
    void thePrimaryKeyIsDescribed() {
        String table = newTable();
        try (SdkTableWriteClient client = client()) {
            assertThat(client.primaryKey(table))
                    .containsExactly(
                            new TableWriteClient.KeyColumn("id", CellValue.Type.INTEGER),
                            new TableWriteClient.KeyColumn("name", CellValue.Type.STRING));
        }
    }
}
