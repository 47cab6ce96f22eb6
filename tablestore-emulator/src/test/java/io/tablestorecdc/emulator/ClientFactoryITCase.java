package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The emulator's client factories sign with its own instance and credentials: non-default ones
 * here, so a factory that fell back to the defaults would be rejected by the server.
 */
class ClientFactoryITCase {

    static TablestoreEmulator emulator;

    @BeforeAll
    static void start() {
        emulator =
                TablestoreEmulator.builder()
                        .instanceName("factory-instance")
                        .accessKeyId("factory-id")
                        .accessKeySecret("factory-secret")
                        .build()
                        .start();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    @Test
    void syncClientCreatesAndDescribesATable() {
        SyncClient client = emulator.newSyncClient();
        try {
            createTable(client, "made");

            TableMeta described =
                    client.describeTable(new DescribeTableRequest("made")).getTableMeta();

            assertThat(described.getTableName()).isEqualTo("made");
            assertThat(described.getPrimaryKeyMap()).containsOnlyKeys("id");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void tunnelClientCreatesAndListsATunnel() {
        SyncClient sync = emulator.newSyncClient();
        TunnelClient tunnels = emulator.newTunnelClient();
        try {
            createTable(sync, "streamed");
            tunnels.createTunnel(new CreateTunnelRequest("streamed", "cdc", TunnelType.Stream));

            assertThat(tunnels.listTunnel(new ListTunnelRequest("streamed")).getTunnelInfos())
                    .extracting(TunnelInfo::getTunnelName)
                    .containsExactly("cdc");
        } finally {
            tunnels.shutdown();
            sync.shutdown();
        }
    }

    private static void createTable(SyncClient client, String name) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }
}
