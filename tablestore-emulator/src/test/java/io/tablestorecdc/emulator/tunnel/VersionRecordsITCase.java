package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.StartOffsetFlag;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records a tunnel reads for writes of several versions of a cell: each write is one record,
 * its cells as written (PUT cells with their timestamps, DELETE_ONE_VERSION with the deleted
 * version's), whatever versions the table keeps.
 */
class VersionRecordsITCase {

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** A version's timestamp: {@code T0 + i} seconds, a minute before now. */
    private static final long T0 = System.currentTimeMillis() - 60_000;

    private static long t(int i) {
        return T0 + i * 1000L;
    }

    private static String newTable(SyncClient client, int maxVersions) {
        String table = "version_records" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, maxVersions)));
        return table;
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    private static Column version(String name, long value, int i) {
        return new Column(name, ColumnValue.fromLong(value), t(i));
    }

    /** Every record of every channel the tunnel hands one new client, in each channel's order. */
    private static List<StreamRecord> readAll(EmulatorBed on, String tunnelId) {
        String clientId =
                on.tunnels()
                        .connectTunnel(
                                new ConnectTunnelRequest(
                                        tunnelId, new TunnelClientConfig(300, "versions")))
                        .getClientId();
        List<Channel> channels =
                on.tunnels()
                        .heartbeat(new HeartbeatRequest(tunnelId, clientId, new ArrayList<>()))
                        .getChannels();
        List<StreamRecord> records = new ArrayList<>();
        for (Channel channel : channels) {
            String id = channel.getChannelId();
            String token =
                    on.tunnels()
                            .getCheckpoint(new GetCheckpointRequest(tunnelId, clientId, id))
                            .getCheckpoint();
            while (token != null) {
                ReadRecordsResponse page =
                        on.tunnels()
                                .readRecords(new ReadRecordsRequest(tunnelId, clientId, id, token));
                records.addAll(page.getRecords());
                token = page.getMayMoreRecord() ? page.getNextToken() : null;
            }
        }
        return records;
    }

    /**
     * A record's cells as "TYPE name=value@i" (i = seconds after T0; no value or time: left out).
     */
    private static List<String> cells(StreamRecord record) {
        List<String> out = new ArrayList<>();
        for (RecordColumn cell : record.getColumns()) {
            Column c = cell.getColumn();
            StringBuilder s = new StringBuilder(cell.getColumnType() + " " + c.getName());
            if (cell.getColumnType() == RecordColumn.ColumnType.PUT) {
                s.append('=').append(c.getValue().asLong());
            }
            if (cell.getColumnType() != RecordColumn.ColumnType.DELETE_ALL_VERSION) {
                s.append('@').append((c.getTimestamp() - T0) / 1000);
            }
            out.add(s.toString());
        }
        return out;
    }

    @Test
    void eachVersionWriteIsOneRecordWithItsCellsAsWritten() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        String tunnelId = bed.createTunnel(table, "versions", TunnelType.Stream);
        writeVersionsAndDeleteOne(client, table);

        List<StreamRecord> records = readAll(bed, tunnelId);

        assertThat(records)
                .extracting(StreamRecord::getRecordType)
                .containsExactly(
                        StreamRecord.RecordType.PUT,
                        StreamRecord.RecordType.UPDATE,
                        StreamRecord.RecordType.UPDATE,
                        StreamRecord.RecordType.UPDATE);
        assertThat(cells(records.get(0))).containsExactly("PUT a=1@1");
        assertThat(cells(records.get(1))).containsExactly("PUT a=2@2", "PUT a=3@3", "PUT b=7@3");
        assertThat(cells(records.get(2)))
                .as("deleting one of several versions names that version alone")
                .containsExactly("DELETE_ONE_VERSION a@2");
        assertThat(cells(records.get(3))).containsExactly("DELETE_ALL_VERSION b");

        SingleRowQueryCriteria get = new SingleRowQueryCriteria(table, key("r"));
        get.setMaxVersions(3);
        Row row = client.getRow(new GetRowRequest(get)).getRow();
        assertThat(row.getColumn("a"))
                .extracting(Column::getTimestamp)
                .as("the versions the records leave")
                .containsExactly(t(3), t(1));
        assertThat(row.contains("b")).isFalse();
    }

    /** a@1 put; a@2, a@3 and b@3 added; a@2 deleted; b deleted. */
    private static void writeVersionsAndDeleteOne(SyncClient client, String table) {
        RowPutChange put = new RowPutChange(table, key("r"));
        put.addColumn(version("a", 1, 1));
        AppliedOnceWrites.put(client, put);
        RowUpdateChange add = new RowUpdateChange(table, key("r"));
        add.put(version("a", 2, 2));
        add.put(version("a", 3, 3));
        add.put(version("b", 7, 3));
        AppliedOnceWrites.update(client, add);
        RowUpdateChange deleteOne = new RowUpdateChange(table, key("r"));
        deleteOne.deleteColumn("a", t(2));
        AppliedOnceWrites.update(client, deleteOne);
        RowUpdateChange deleteAll = new RowUpdateChange(table, key("r"));
        deleteAll.deleteColumns("b");
        AppliedOnceWrites.update(client, deleteAll);
    }

    /** The emulator's own: the change logs are rebuilt from the journal at start. */
    @Test
    void aRestartWithADataDirectoryKeepsTheRecordsOfVersionWrites(@TempDir Path dataDir) {
        String table;
        List<List<String>> before;
        try (EmulatorBed first = EmulatorBed.start(TablestoreEmulator.builder().dataDir(dataDir))) {
            table = newTable(first.sync(), 3);
            writeVersionsAndDeleteOne(first.sync(), table);
            before = cellsOfEach(readAll(first, earliest(first, table, "before")));
        }
        assertThat(before)
                .containsExactly(
                        List.of("PUT a=1@1"),
                        List.of("PUT a=2@2", "PUT a=3@3", "PUT b=7@3"),
                        List.of("DELETE_ONE_VERSION a@2"),
                        List.of("DELETE_ALL_VERSION b"));

        try (EmulatorBed restarted =
                EmulatorBed.start(TablestoreEmulator.builder().dataDir(dataDir))) {
            assertThat(cellsOfEach(readAll(restarted, earliest(restarted, table, "after"))))
                    .isEqualTo(before);
        }
    }

    private static String earliest(EmulatorBed on, String table, String tunnel) {
        return on.createTunnel(
                table, tunnel, TunnelType.Stream, new StreamTunnelConfig(StartOffsetFlag.EARLIEST));
    }

    private static List<List<String>> cellsOfEach(List<StreamRecord> records) {
        return records.stream().map(VersionRecordsITCase::cells).toList();
    }

    /**
     * The emulator's choice (the service's documentation does not say): a base-data record holds
     * the newest version of each column, as a read with max versions 1 returns the row.
     */
    @Test
    void aBaseDataRecordHoldsTheNewestVersionOfEachColumn() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        RowUpdateChange add = new RowUpdateChange(table, key("r"));
        add.put(version("a", 1, 1));
        add.put(version("a", 3, 3));
        add.put(version("a", 2, 2));
        add.put(version("b", 5, 1));
        AppliedOnceWrites.update(client, add);
        String tunnelId = bed.createTunnel(table, "base", TunnelType.BaseData);

        List<StreamRecord> records = readAll(bed, tunnelId);

        assertThat(records).hasSize(1);
        assertThat(records.get(0).getRecordType()).isEqualTo(StreamRecord.RecordType.PUT);
        assertThat(cells(records.get(0))).containsExactly("PUT a=3@3", "PUT b=5@1");
    }
}
