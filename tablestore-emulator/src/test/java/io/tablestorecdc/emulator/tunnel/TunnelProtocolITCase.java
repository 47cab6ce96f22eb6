package io.tablestorecdc.emulator.tunnel;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateTableRequest;
import com.alicloud.openservices.tablestore.model.UpdateTableResponse;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelStatus;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelType;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelStage;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.tunnel.pipeline.Utils;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The tunnel API call by call through the SDK's TunnelClient, as a low-level consumer uses it. */
class TunnelProtocolITCase {

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    /** One connected client of one tunnel, driving the low-level calls. */
    private static final class Client {
        final String tunnelId;
        final String clientId;
        final Map<String, Long> seq = new java.util.HashMap<>();

        Client(String tunnelId, long timeoutSeconds) {
            this.tunnelId = tunnelId;
            this.clientId =
                    bed.tunnels()
                            .connectTunnel(
                                    new ConnectTunnelRequest(
                                            tunnelId,
                                            new TunnelClientConfig(timeoutSeconds, "test")))
                            .getClientId();
        }

        Client(String tunnelId) {
            this(tunnelId, 300);
        }

        Map<String, Channel> heartbeat(Channel... report) {
            List<Channel> channels =
                    bed.tunnels()
                            .heartbeat(
                                    new HeartbeatRequest(
                                            tunnelId,
                                            clientId,
                                            new ArrayList<>(Arrays.asList(report))))
                            .getChannels();
            return channels.stream()
                    .collect(Collectors.toMap(Channel::getChannelId, Function.identity()));
        }

        String checkpointOf(String channelId) {
            GetCheckpointResponse r =
                    bed.tunnels()
                            .getCheckpoint(new GetCheckpointRequest(tunnelId, clientId, channelId));
            seq.put(channelId, r.getSequenceNumber());
            return r.getCheckpoint();
        }

        ReadRecordsResponse read(String channelId, String token) {
            return bed.tunnels()
                    .readRecords(new ReadRecordsRequest(tunnelId, clientId, channelId, token));
        }

        void checkpoint(String channelId, String token) {
            long next = seq.getOrDefault(channelId, 0L) + 1;
            bed.tunnels()
                    .checkpoint(new CheckpointRequest(tunnelId, clientId, channelId, token, next));
            seq.put(channelId, next);
        }

        /** Reads the channel from its checkpoint to the end of what is there now. */
        List<StreamRecord> drain(String channelId) {
            List<StreamRecord> out = new ArrayList<>();
            String token = checkpointOf(channelId);
            while (token != null) {
                ReadRecordsResponse r = read(channelId, token);
                out.addAll(r.getRecords());
                token = r.getNextToken();
                if (token != null && !r.getMayMoreRecord()) {
                    checkpoint(channelId, token);
                    return out;
                }
            }
            checkpoint(channelId, "finished");
            return out;
        }
    }

    private static Map<String, ChannelInfo> channels(DescribeTunnelResponse describe) {
        return describe.getChannelInfos().stream()
                .collect(Collectors.toMap(ChannelInfo::getChannelId, Function.identity()));
    }

    private static List<String> ids(List<StreamRecord> records) {
        return records.stream()
                .map(r -> r.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString())
                .toList();
    }

    private static String errorCode(Runnable call) {
        try {
            call.run();
        } catch (TableStoreException e) {
            return e.getErrorCode();
        }
        throw new AssertionError("expected the call to fail");
    }

    @Test
    void describeReportsTheTunnelAndItsUnassignedChannelAsWait() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "d", TunnelType.Stream);

        DescribeTunnelResponse d = bed.describeTunnel(table, "d");

        assertThat(d.getTunnelInfo().getTunnelId()).isEqualTo(tunnelId);
        assertThat(d.getTunnelInfo().getTunnelType()).isEqualTo(TunnelType.Stream);
        assertThat(d.getTunnelInfo().getTableName()).isEqualTo(table);
        assertThat(d.getTunnelInfo().getInstanceName()).isEqualTo(bed.emulator().instanceName());
        assertThat(d.getTunnelInfo().getStage()).isEqualTo(TunnelStage.ProcessStream);
        assertThat(d.getChannelInfos()).hasSize(1);
        ChannelInfo channel = d.getChannelInfos().get(0);
        assertThat(channel.getChannelType()).isEqualTo(ChannelType.Stream);
        assertThat(channel.getChannelStatus()).isEqualTo(ChannelStatus.WAIT);
    }

    @Test
    void aStreamWithOriginColumnsCarriesTheirValuesBeforeEachChange() {
        String table = "origin_t" + System.nanoTime();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        StreamSpecification stream = new StreamSpecification(true, 24);
        stream.addOriginColumnsToGet(new String[] {"v", "w"});
        create.setStreamSpecification(stream);
        bed.sync().createTable(create);
        assertThat(
                        bed.sync()
                                .describeTable(new DescribeTableRequest(table))
                                .getStreamDetails()
                                .getOriginColumnsToGet())
                .containsExactlyInAnyOrder("v", "w");
        String tunnelId = bed.createTunnel(table, "o", TunnelType.Stream);
        bed.put(table, "a", cell("v", 1), cell("x", 9)); // new row: nothing before
        bed.update(table, "a", cell("w", 2)); // v=1 before; w absent
        bed.put(table, "a", cell("v", 3)); // a whole-row put over v=1, w=2
        bed.deleteColumn(table, "a", "v"); // v=3 before
        bed.delete(table, "a"); // nothing left of v or w: no origin record
        bed.put(table, "b", cell("w", 5));
        bed.delete(table, "b"); // w=5 before
        Client client = new Client(tunnelId);
        client.heartbeat();

        List<StreamRecord> records = client.read("p-0", client.checkpointOf("p-0")).getRecords();

        assertThat(records)
                .extracting(BeforeImage::of)
                .containsExactly(
                        new BeforeImage("a", StreamRecord.RecordType.PUT, Map.of()),
                        new BeforeImage("a", StreamRecord.RecordType.UPDATE, Map.of("v", 1L)),
                        new BeforeImage("a", StreamRecord.RecordType.PUT, Map.of("v", 1L, "w", 2L)),
                        new BeforeImage("a", StreamRecord.RecordType.UPDATE, Map.of("v", 3L)),
                        new BeforeImage("a", StreamRecord.RecordType.DELETE, Map.of()),
                        new BeforeImage("b", StreamRecord.RecordType.PUT, Map.of()),
                        new BeforeImage("b", StreamRecord.RecordType.DELETE, Map.of("w", 5L)));
        // a before-image cell is a PUT with the version the row held
        RecordColumn v = records.get(1).getOriginColumns().get(0);
        assertThat(v.getColumnType()).isEqualTo(RecordColumn.ColumnType.PUT);
        assertThat(v.getColumn().getTimestamp())
                .isEqualTo(records.get(0).getColumns().get(0).getColumn().getTimestamp());
    }

    @Test
    void originColumnsSetByUpdateTableApplyToTheChangesAfterIt() {
        String table = "origin_later_t" + System.nanoTime();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        create.setStreamSpecification(new StreamSpecification(true, 24));
        bed.sync().createTable(create);
        String tunnelId = bed.createTunnel(table, "o", TunnelType.Stream);
        bed.put(table, "a", cell("v", 1));
        bed.update(table, "a", cell("v", 2)); // no origin columns yet: no before-image

        UpdateTableRequest update = new UpdateTableRequest(table);
        StreamSpecification stream = new StreamSpecification(true, 24);
        stream.addOriginColumnsToGet(new String[] {"v"});
        update.setStreamSpecification(stream);
        UpdateTableResponse answer = bed.sync().updateTable(update);
        bed.update(table, "a", cell("v", 3)); // v=2 before

        assertThat(answer.getStreamDetails().getOriginColumnsToGet()).containsExactly("v");
        assertThat(
                        bed.sync()
                                .describeTable(new DescribeTableRequest(table))
                                .getStreamDetails()
                                .getOriginColumnsToGet())
                .containsExactly("v");
        Client client = new Client(tunnelId);
        client.heartbeat();
        List<StreamRecord> records = client.read("p-0", client.checkpointOf("p-0")).getRecords();
        assertThat(records)
                .extracting(BeforeImage::of)
                .containsExactly(
                        new BeforeImage("a", StreamRecord.RecordType.PUT, Map.of()),
                        new BeforeImage("a", StreamRecord.RecordType.UPDATE, Map.of()),
                        new BeforeImage("a", StreamRecord.RecordType.UPDATE, Map.of("v", 2L)));
    }

    @Test
    void updateTableChangesTheOptionsItNamesAndRefusesAnEmptyChange() {
        String table = bed.newTable("update_t");
        UpdateTableRequest options = new UpdateTableRequest(table);
        options.setTableOptionsForUpdate(new TableOptions(86_400 * 7, 3));
        UpdateTableResponse answer = bed.sync().updateTable(options);

        assertThat(answer.getTableOptions().getTimeToLive()).isEqualTo(86_400 * 7);
        TableOptions described =
                bed.sync().describeTable(new DescribeTableRequest(table)).getTableOptions();
        assertThat(described.getTimeToLive()).isEqualTo(86_400 * 7);
        assertThat(described.getMaxVersions()).isEqualTo(3);
        assertThatThrownBy(() -> bed.sync().updateTable(new UpdateTableRequest(table)))
                .isInstanceOf(TableStoreException.class)
                .hasMessageContaining("changes nothing");
        assertThatThrownBy(() -> bed.sync().updateTable(options("missing_" + System.nanoTime())))
                .isInstanceOf(TableStoreException.class)
                .satisfies(
                        e ->
                                assertThat(((TableStoreException) e).getErrorCode())
                                        .isEqualTo("OTSObjectNotExist"));
    }

    private static UpdateTableRequest options(String table) {
        UpdateTableRequest request = new UpdateTableRequest(table);
        request.setTableOptionsForUpdate(new TableOptions(-1, 2));
        return request;
    }

    /** A record's key, type and the origin columns it carries, as the SDK parsed them. */
    private record BeforeImage(String id, StreamRecord.RecordType type, Map<String, Long> before) {
        static BeforeImage of(StreamRecord r) {
            Map<String, Long> before = new java.util.TreeMap<>();
            if (r.getOriginColumns() != null) {
                r.getOriginColumns()
                        .forEach(
                                c ->
                                        before.put(
                                                c.getColumn().getName(),
                                                c.getColumn().getValue().asLong()));
            }
            return new BeforeImage(
                    r.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString(),
                    r.getRecordType(),
                    before);
        }
    }

    private static Column cell(String name, long value) {
        return new Column(name, ColumnValue.fromLong(value));
    }

    @Test
    void aStreamChannelReadsChangesAfterTheTunnelStartWithSequenceInfo() {
        String table = bed.newTable("tunnel_t");
        bed.put(table, "before", 0);
        String tunnelId = bed.createTunnel(table, "s", TunnelType.Stream);
        bed.put(table, "a", 1);
        bed.put(table, "b", 2);
        bed.delete(table, "a");
        Client client = new Client(tunnelId);

        Map<String, Channel> held = client.heartbeat();
        assertThat(held).containsOnlyKeys("p-0");
        assertThat(held.get("p-0").getStatus()).isEqualTo(ChannelStatus.OPEN);
        String start = client.checkpointOf("p-0");
        assertThat(Utils.isStreamToken(start)).isTrue();
        ReadRecordsResponse r = client.read("p-0", start);

        assertThat(ids(r.getRecords())).containsExactly("a", "b", "a");
        assertThat(r.getRecords().get(2).getRecordType()).isEqualTo(StreamRecord.RecordType.DELETE);
        assertThat(r.getRecords())
                .extracting(rec -> rec.getSequenceInfo().getRowIndex())
                .containsExactly(1, 2, 3);
        assertThat(r.getMayMoreRecord()).isFalse();
        assertThat(Utils.isStreamToken(r.getNextToken())).isTrue();
        assertThat(client.read("p-0", r.getNextToken()).getRecords()).isEmpty();
    }

    @Test
    void checkpointsNeedTheNextSequenceNumber() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "c", TunnelType.Stream);
        bed.put(table, "a", 1);
        Client client = new Client(tunnelId);
        client.heartbeat();
        ReadRecordsResponse r = client.read("p-0", client.checkpointOf("p-0"));
        client.checkpoint("p-0", r.getNextToken());

        String code =
                errorCode(
                        () ->
                                bed.tunnels()
                                        .checkpoint(
                                                new CheckpointRequest(
                                                        tunnelId,
                                                        client.clientId,
                                                        "p-0",
                                                        r.getNextToken(),
                                                        1)));

        assertThat(code).isEqualTo("OTSSequenceNumberNotMatch");
        assertThat(client.checkpointOf("p-0")).isEqualTo(r.getNextToken());
        assertThat(client.seq.get("p-0")).isEqualTo(1);
        assertThat(channels(bed.describeTunnel(table, "c")).get("p-0").getChannelCount())
                .isEqualTo(1);
    }

    @Test
    void aSplitFinishesTheParentAndHoldsTheChildrenUntilItIsFinished() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "split", TunnelType.Stream);
        bed.put(table, "a", 1);
        Client client = new Client(tunnelId);
        Map<String, Channel> held = client.heartbeat();

        assertThat(bed.emulator().tunnels().split(table, key("m"))).containsExactly("p-1", "p-2");
        bed.put(table, "b", 2);
        bed.put(table, "z", 3);

        Map<String, ChannelInfo> described = channels(bed.describeTunnel(table, "split"));
        assertThat(described.get("p-1").getChannelStatus()).isEqualTo(ChannelStatus.WAIT);
        assertThat(described.get("p-2").getChannelStatus()).isEqualTo(ChannelStatus.WAIT);
        assertThat(client.heartbeat(held.get("p-0"))).containsOnlyKeys("p-0");
        assertThat(errorCode(() -> client.read("p-1", client.checkpointOf("p-1"))))
                .isEqualTo("OTSParameterInvalid");

        ReadRecordsResponse parentTail = client.read("p-0", client.checkpointOf("p-0"));
        assertThat(ids(parentTail.getRecords())).containsExactly("a");
        assertThat(parentTail.getNextToken()).as("finished").isNull();
        assertThat(client.heartbeat(held.get("p-0"))).containsOnlyKeys("p-0");

        client.checkpoint("p-0", "finished");
        Channel terminated = new Channel("p-0", 2, ChannelStatus.TERMINATED);
        assertThat(client.heartbeat(terminated)).containsOnlyKeys("p-1", "p-2");
        assertThat(ids(client.drain("p-1"))).containsExactly("b");
        assertThat(ids(client.drain("p-2"))).containsExactly("z");
        assertThat(channels(bed.describeTunnel(table, "split")).get("p-0").getChannelStatus())
                .isEqualTo(ChannelStatus.TERMINATED);
    }

    @Test
    void aMergedChildWaitsForBothParentsEvenWhenOneReportsTerminated() {
        String table = bed.newTable("tunnel_t");
        bed.emulator().tunnels().split(table, key("m"));
        String tunnelId = bed.createTunnel(table, "merge", TunnelType.Stream);
        bed.put(table, "a", 1);
        bed.put(table, "x", 2);
        Client client = new Client(tunnelId);
        assertThat(client.heartbeat()).containsOnlyKeys("p-1", "p-2");

        assertThat(bed.emulator().tunnels().merge(table, key("m"))).isEqualTo("p-3");
        bed.put(table, "c", 3);
        assertThat(ids(client.drain("p-1"))).containsExactly("a");
        Map<String, Channel> afterOne =
                client.heartbeat(new Channel("p-1", 2, ChannelStatus.TERMINATED));
        assertThat(afterOne).containsOnlyKeys("p-2");
        assertThat(channels(bed.describeTunnel(table, "merge")).get("p-3").getChannelStatus())
                .isEqualTo(ChannelStatus.WAIT);

        assertThat(ids(client.drain("p-2"))).containsExactly("x");
        assertThat(client.heartbeat(new Channel("p-2", 2, ChannelStatus.TERMINATED)))
                .containsOnlyKeys("p-3");
        assertThat(ids(client.drain("p-3"))).containsExactly("c");
    }

    @Test
    void aClosedChannelIsOfferedAgainLaterWithAHigherVersion() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "close", TunnelType.Stream);
        Client client = new Client(tunnelId);
        long v = client.heartbeat().get("p-0").getVersion();

        Map<String, Channel> afterClose =
                client.heartbeat(new Channel("p-0", v + 1, ChannelStatus.CLOSE));
        assertThat(afterClose).isEmpty();
        assertThat(channels(bed.describeTunnel(table, "close")).get("p-0").getChannelStatus())
                .isEqualTo(ChannelStatus.CLOSE);

        Channel again = client.heartbeat().get("p-0");
        assertThat(again.getStatus()).isEqualTo(ChannelStatus.OPEN);
        assertThat(again.getVersion()).isGreaterThan(v + 1);
    }

    @Test
    void anExpiredClientIsGoneAndItsChannelGoesToAnother() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "expire", TunnelType.Stream);
        Client first = new Client(tunnelId);
        long v = first.heartbeat().get("p-0").getVersion();

        assertThat(bed.emulator().tunnels().expireClients(tunnelId)).isEqualTo(1);

        assertThat(errorCode(first::heartbeat)).isEqualTo("OTSResourceGone");
        Channel taken = new Client(tunnelId).heartbeat().get("p-0");
        assertThat(taken.getVersion()).isGreaterThan(v);
    }

    @Test
    void aClientThatMissesHeartbeatsForItsTimeoutExpires() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "timeout", TunnelType.Stream);
        new Client(tunnelId, 1).heartbeat();
        assertThat(channels(bed.describeTunnel(table, "timeout")).get("p-0").getClientId())
                .isNotNull();

        Await.until(
                "the client to expire",
                Duration.ofSeconds(5),
                () ->
                        channels(bed.describeTunnel(table, "timeout")).get("p-0").getChannelStatus()
                                == ChannelStatus.CLOSE);
    }

    @Test
    void aNewClientGetsAFairShareThroughClosing() {
        String table = bed.newTable("tunnel_t");
        bed.emulator().tunnels().split(table, key("h"));
        bed.emulator().tunnels().split(table, key("p"));
        String tunnelId = bed.createTunnel(table, "balance", TunnelType.BaseData);
        Client first = new Client(tunnelId);
        Map<String, Channel> held = first.heartbeat();
        assertThat(held).hasSize(3);
        Client second = new Client(tunnelId);
        assertThat(second.heartbeat()).isEmpty();

        Map<String, Channel> told = first.heartbeat(held.values().toArray(Channel[]::new));
        List<Channel> closing =
                told.values().stream().filter(c -> c.getStatus() == ChannelStatus.CLOSING).toList();
        assertThat(closing).hasSize(1);
        Channel given = closing.get(0);
        first.heartbeat(
                new Channel(given.getChannelId(), given.getVersion() + 1, ChannelStatus.CLOSE));

        Map<String, Channel> secondHeld = second.heartbeat();
        assertThat(secondHeld).containsOnlyKeys(given.getChannelId());
        assertThat(secondHeld.get(given.getChannelId()).getVersion())
                .isGreaterThan(given.getVersion() + 1);
    }

    @Test
    void aBaseDataChannelReadsTheSnapshotThenFinishes() {
        String table = bed.newTable("tunnel_t");
        bed.put(table, "a", 1);
        bed.put(table, "b", 2);
        bed.put(table, "c", 3);
        String tunnelId = bed.createTunnel(table, "base", TunnelType.BaseData);
        bed.put(table, "d", 4);
        Client client = new Client(tunnelId);
        assertThat(client.heartbeat()).containsOnlyKeys("BaseData_p-0");
        assertThat(bed.describeTunnel(table, "base").getTunnelInfo().getStage())
                .isEqualTo(TunnelStage.ProcessBaseData);

        bed.emulator().tunnels().fixReadBatchSize(2);
        try {
            ReadRecordsResponse first =
                    client.read("BaseData_p-0", client.checkpointOf("BaseData_p-0"));
            assertThat(ids(first.getRecords())).containsExactly("a", "b");
            assertThat(Utils.isStreamToken(first.getNextToken())).isFalse();
            ReadRecordsResponse last = client.read("BaseData_p-0", first.getNextToken());
            assertThat(ids(last.getRecords())).containsExactly("c");
            assertThat(last.getNextToken()).isNull();
        } finally {
            bed.emulator().tunnels().fixReadBatchSize(TunnelService.DEFAULT_READ_BATCH_SIZE);
        }
    }

    @Test
    void aBaseDataTunnelWhoseBaseDataWasReadReportsTheStreamStage() {
        String table = bed.newTable("tunnel_t");
        bed.put(table, "a", 1);
        String tunnelId = bed.createTunnel(table, "base-done", TunnelType.BaseData);
        Client client = new Client(tunnelId);
        assertThat(client.heartbeat()).containsOnlyKeys("BaseData_p-0");
        assertThat(bed.describeTunnel(table, "base-done").getTunnelInfo().getStage())
                .as("while its base data is read")
                .isEqualTo(TunnelStage.ProcessBaseData);

        assertThat(ids(client.drain("BaseData_p-0"))).containsExactly("a");
        client.heartbeat(new Channel("BaseData_p-0", 2, ChannelStatus.TERMINATED));

        assertThat(bed.describeTunnel(table, "base-done").getTunnelInfo().getStage())
                .isEqualTo(TunnelStage.ProcessStream);
    }

    @Test
    void aResponseIsCutAtTheByteCapAndItsTokenContinuesExactlyThere() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "bytes", TunnelType.Stream);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String id = "k" + i;
            RowPutChange put = new RowPutChange(table, key(id));
            put.addColumn("payload", ColumnValue.fromString("x".repeat(1_000)));
            AppliedOnceWrites.put(bed.sync(), put);
            written.add(id);
        }
        Client client = new Client(tunnelId);
        client.heartbeat();
        String start = client.checkpointOf("p-0");
        bed.emulator().tunnels().fixReadBatchBytes(3_500);
        try {
            List<String> read = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            String token = start;
            ReadRecordsResponse r;
            do {
                r = client.read("p-0", token);
                sizes.add(r.getRecords().size());
                read.addAll(ids(r.getRecords()));
                token = r.getNextToken();
            } while (r.getMayMoreRecord());

            assertThat(read).containsExactlyElementsOf(written);
            assertThat(sizes)
                    .as("about 1 KB a record, 3.5 KB a response")
                    .containsExactly(3, 3, 3, 1);
            assertThat(ids(client.read("p-0", start).getRecords()))
                    .as("the same token, the same records")
                    .containsExactly("k0", "k1", "k2");

            bed.emulator().tunnels().fixReadBatchBytes(100);
            ReadRecordsResponse alone = client.read("p-0", start);
            assertThat(ids(alone.getRecords()))
                    .as("a record larger than the cap comes alone")
                    .containsExactly("k0");
            assertThat(alone.getMayMoreRecord()).isTrue();
            assertThat(ids(client.read("p-0", alone.getNextToken()).getRecords()))
                    .containsExactly("k1");
        } finally {
            bed.emulator().tunnels().fixReadBatchBytes(TunnelService.DEFAULT_READ_BATCH_BYTES);
        }
    }

    @Test
    void streamChannelsOfABaseAndStreamTunnelWaitForEveryBaseChannel() {
        String table = bed.newTable("tunnel_t");
        bed.put(table, "a", 1);
        String tunnelId = bed.createTunnel(table, "both", TunnelType.BaseAndStream);
        bed.put(table, "b", 2);
        Client client = new Client(tunnelId);

        assertThat(client.heartbeat()).containsOnlyKeys("BaseData_p-0");
        assertThat(channels(bed.describeTunnel(table, "both")).get("p-0").getChannelStatus())
                .isEqualTo(ChannelStatus.WAIT);
        assertThat(ids(client.drain("BaseData_p-0"))).containsExactly("a");

        assertThat(client.heartbeat(new Channel("BaseData_p-0", 2, ChannelStatus.TERMINATED)))
                .containsOnlyKeys("p-0");
        assertThat(bed.describeTunnel(table, "both").getTunnelInfo().getStage())
                .isEqualTo(TunnelStage.ProcessStream);
        assertThat(ids(client.drain("p-0"))).containsExactly("b");
    }

    @Test
    void anEndOffsetFinishesStreamChannels() {
        String table = bed.newTable("tunnel_t");
        long now = System.currentTimeMillis();
        String tunnelId =
                bed.createTunnel(
                        table,
                        "end",
                        TunnelType.Stream,
                        new StreamTunnelConfig(now - 60_000, now + 300));
        bed.put(table, "a", 1);
        Client client = new Client(tunnelId);
        client.heartbeat();
        Await.until(
                "the end offset to pass",
                Duration.ofSeconds(5),
                () -> System.currentTimeMillis() > now + 400);
        bed.put(table, "late", 2);

        ReadRecordsResponse r = client.read("p-0", client.checkpointOf("p-0"));

        assertThat(ids(r.getRecords())).containsExactly("a");
        assertThat(r.getNextToken()).isNull();
    }

    @Test
    void badReadsAreParameterErrorsAndAnExpiredTunnelRefusesCalls() {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "bad", TunnelType.Stream);
        Client holder = new Client(tunnelId);
        holder.heartbeat();
        Client other = new Client(tunnelId);
        String token = holder.checkpointOf("p-0");

        assertThat(errorCode(() -> other.read("p-0", token))).isEqualTo("OTSParameterInvalid");
        assertThat(errorCode(() -> holder.read("nope", token))).isEqualTo("OTSParameterInvalid");
        assertThat(errorCode(() -> holder.read("p-0", "garbage"))).isEqualTo("OTSParameterInvalid");
        assertThatThrownBy(() -> bed.createTunnel(table, "bad", TunnelType.Stream))
                .isInstanceOf(TableStoreException.class)
                .hasMessageContaining("already exists");

        bed.emulator().tunnels().expireTunnel(tunnelId);

        assertThat(errorCode(holder::heartbeat)).isEqualTo("OTSTunnelExpired");
        assertThat(bed.describeTunnel(table, "bad").getTunnelInfo().isExpired()).isTrue();
    }
}
