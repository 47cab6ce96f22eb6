package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelRetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The services a command talks to, through the core's own clients: the tunnel server ({@link
 * SdkTunnelProxy}), the meta table ({@link MetaTable}) and, to resolve a selection of several
 * tables, the instance's table list ({@link SdkTableService#listTables}).
 */
final class Service implements AutoCloseable {

    /** Fewer and shorter retries than a running consumer's: an operator waits at the prompt. */
    private static final TunnelRetryPolicy RETRIES =
            new TunnelRetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(1));

    private final TablestoreEndpoint endpoint;
    private final SdkTunnelProxy tunnels;
    private final SdkMetaTableClient metaClient;
    private final MetaTable meta;

    private Service(
            TablestoreEndpoint endpoint,
            SdkTunnelProxy tunnels,
            SdkMetaTableClient metaClient,
            Clock clock) {
        this.endpoint = endpoint;
        this.tunnels = tunnels;
        this.metaClient = metaClient;
        this.meta = new MetaTable(metaClient, clock);
    }

    static Service open(TablestoreEndpoint endpoint, String metaTable, Clock clock) {
        SdkTunnelProxy tunnels = SdkTunnelProxy.create(endpoint, RETRIES, new TunnelMetrics());
        try {
            return new Service(
                    endpoint, tunnels, SdkMetaTableClient.connect(endpoint, metaTable), clock);
        } catch (RuntimeException e) {
            tunnels.close();
            throw e;
        }
    }

    SdkTunnelProxy tunnels() {
        return tunnels;
    }

    MetaTable meta() {
        return meta;
    }

    String metaTable() {
        return metaClient.tableName();
    }

    /** The instance's name, for messages. */
    String instance() {
        return endpoint.instanceName();
    }

    /**
     * The names of the instance's tables (one ListTable), sorted.
     *
     * @throws IllegalStateException when the instance cannot be listed, naming the fix
     */
    List<String> listTables() {
        return SdkTableService.listTables(endpoint);
    }

    @Override
    public void close() {
        try {
            tunnels.close();
        } finally {
            metaClient.close();
        }
    }
}
