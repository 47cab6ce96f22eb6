package io.tablestorecdc.emulator.tunnel;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.ChannelStatus;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelResponse;
import com.alicloud.openservices.tablestore.model.tunnel.StartOffsetFlag;
import com.alicloud.openservices.tablestore.model.tunnel.StreamTunnelConfig;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.CheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tunnels, partitions and checkpoints survive a restart of an emulator with a data directory. */
class TunnelDurabilityITCase {

    private static final String TABLE = "durable";

    @TempDir Path dataDir;

    /** One emulator life with its SDK clients. */
    private final class Life implements AutoCloseable {
        final TablestoreEmulator emulator =
                TablestoreEmulator.builder().dataDir(dataDir).build().start();
        final SyncClient sync = emulator.newSyncClient();
        final TunnelClient tunnel = emulator.newTunnelClient();

        void put(String id) {
            RowPutChange change = new RowPutChange(TABLE, key(id));
            change.addColumn(new Column("v", ColumnValue.fromString(id)));
            AppliedOnceWrites.put(sync, change);
        }

        String connect(String tunnelId) {
            return tunnel.connectTunnel(
                            new ConnectTunnelRequest(tunnelId, new TunnelClientConfig(300, "t")))
                    .getClientId();
        }

        List<String> heartbeat(String tunnelId, String clientId, Channel... report) {
            return tunnel
                    .heartbeat(
                            new HeartbeatRequest(
                                    tunnelId, clientId, new ArrayList<>(List.of(report))))
                    .getChannels()
                    .stream()
                    .map(Channel::getChannelId)
                    .sorted()
                    .toList();
        }

        GetCheckpointResponse checkpointOf(String tunnelId, String clientId, String channel) {
            return tunnel.getCheckpoint(new GetCheckpointRequest(tunnelId, clientId, channel));
        }

        ReadRecordsResponse read(String tunnelId, String clientId, String channel, String token) {
            return tunnel.readRecords(new ReadRecordsRequest(tunnelId, clientId, channel, token));
        }

        void checkpoint(String tunnelId, String clientId, String channel, String token, long seq) {
            tunnel.checkpoint(new CheckpointRequest(tunnelId, clientId, channel, token, seq));
        }

        DescribeTunnelResponse describe(String name) {
            return tunnel.describeTunnel(new DescribeTunnelRequest(TABLE, name));
        }

        @Override
        public void close() {
            tunnel.shutdown();
            sync.shutdown();
            emulator.tunnels().close();
            emulator.close();
        }
    }

    private static List<String> ids(ReadRecordsResponse r) {
        return r.getRecords().stream()
                .map(StreamRecord::getPrimaryKey)
                .map(pk -> pk.getPrimaryKeyColumn("id").getValue().asString())
                .toList();
    }

    private static Map<String, ChannelInfo> channels(DescribeTunnelResponse d) {
        return d.getChannelInfos().stream()
                .collect(Collectors.toMap(ChannelInfo::getChannelId, Function.identity()));
    }

    @Test
    void tunnelsPartitionsAndCheckpointsSurviveARestart() {
        String streamId;
        String baseId;
        String savedToken;
        try (Life life = new Life()) {
            TableMeta meta = new TableMeta(TABLE);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            life.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            life.put("a");
            streamId =
                    life.tunnel
                            .createTunnel(new CreateTunnelRequest(TABLE, "s", TunnelType.Stream))
                            .getTunnelId();
            baseId =
                    life.tunnel
                            .createTunnel(new CreateTunnelRequest(TABLE, "b", TunnelType.BaseData))
                            .getTunnelId();
            life.put("b");
            life.emulator.tunnels().split(TABLE, key("m"));
            life.put("c");
            life.put("x");
            String client = life.connect(streamId);
            life.heartbeat(streamId, client);
            ReadRecordsResponse parent =
                    life.read(
                            streamId,
                            client,
                            "p-0",
                            life.checkpointOf(streamId, client, "p-0").getCheckpoint());
            assertThat(ids(parent)).containsExactly("b");
            life.checkpoint(streamId, client, "p-0", "finished", 1);
            assertThat(
                            life.heartbeat(
                                    streamId,
                                    client,
                                    new Channel("p-0", 2, ChannelStatus.TERMINATED)))
                    .containsExactly("p-1", "p-2");
            ReadRecordsResponse child =
                    life.read(
                            streamId,
                            client,
                            "p-1",
                            life.checkpointOf(streamId, client, "p-1").getCheckpoint());
            assertThat(ids(child)).containsExactly("c");
            savedToken = child.getNextToken();
            life.checkpoint(streamId, client, "p-1", savedToken, 1);
            life.put("d");
            life.tunnel.createTunnel(new CreateTunnelRequest(TABLE, "old", TunnelType.Stream));
            life.emulator.tunnels().expireTunnel("old");
        }

        try (Life life = new Life()) {
            DescribeTunnelResponse s = life.describe("s");
            assertThat(s.getTunnelInfo().getTunnelId()).isEqualTo(streamId);
            assertThat(channels(s).get("p-0").getChannelStatus())
                    .isEqualTo(ChannelStatus.TERMINATED);
            assertThat(life.describe("old").getTunnelInfo().isExpired()).isTrue();
            assertThat(life.emulator.tunnels().partitions(TABLE))
                    .extracting(PartitionView::id, PartitionView::active)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("p-0", false),
                            org.assertj.core.groups.Tuple.tuple("p-1", true),
                            org.assertj.core.groups.Tuple.tuple("p-2", true));

            String client = life.connect(streamId);
            assertThat(life.heartbeat(streamId, client)).containsExactly("p-1", "p-2");
            GetCheckpointResponse saved = life.checkpointOf(streamId, client, "p-1");
            assertThat(saved.getCheckpoint()).isEqualTo(savedToken);
            assertThat(saved.getSequenceNumber()).isEqualTo(1);
            life.put("e");
            assertThat(ids(life.read(streamId, client, "p-1", saved.getCheckpoint())))
                    .containsExactly("d", "e");

            String baseClient = life.connect(baseId);
            assertThat(life.heartbeat(baseId, baseClient)).containsExactly("BaseData_p-0");
            String baseStart =
                    life.checkpointOf(baseId, baseClient, "BaseData_p-0").getCheckpoint();
            assertThat(ids(life.read(baseId, baseClient, "BaseData_p-0", baseStart)))
                    .as("the snapshot taken at creation")
                    .containsExactly("a");

            String earliest = life.tunnel.createTunnel(earliest()).getTunnelId();
            String reader = life.connect(earliest);
            assertThat(life.heartbeat(earliest, reader)).containsExactly("p-0");
            ReadRecordsResponse history =
                    life.read(
                            earliest,
                            reader,
                            "p-0",
                            life.checkpointOf(earliest, reader, "p-0").getCheckpoint());
            assertThat(ids(history))
                    .as("the split replayed between the same writes")
                    .containsExactly("a", "b");
            assertThat(history.getNextToken()).isNull();
        }
    }

    private static CreateTunnelRequest earliest() {
        CreateTunnelRequest request = new CreateTunnelRequest(TABLE, "history", TunnelType.Stream);
        request.setStreamTunnelConfig(new StreamTunnelConfig(StartOffsetFlag.EARLIEST));
        return request;
    }
}
