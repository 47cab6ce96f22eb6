package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelRetryPolicy;
import java.time.Clock;
import java.time.Duration;

/**
 * The two services a command talks to, through the core's own clients: the tunnel server ({@link
 * SdkTunnelProxy}) and the meta table ({@link MetaTable}).
 */
final class Service implements AutoCloseable {

    /** Fewer and shorter retries than a running consumer's: an operator waits at the prompt. */
    private static final TunnelRetryPolicy RETRIES =
            new TunnelRetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(1));

    private final SdkTunnelProxy tunnels;
    private final SdkMetaTableClient metaClient;
    private final MetaTable meta;

    private Service(SdkTunnelProxy tunnels, SdkMetaTableClient metaClient, Clock clock) {
        this.tunnels = tunnels;
        this.metaClient = metaClient;
        this.meta = new MetaTable(metaClient, clock);
    }

    static Service open(TablestoreEndpoint endpoint, String metaTable, Clock clock) {
        SdkTunnelProxy tunnels = SdkTunnelProxy.create(endpoint, RETRIES, new TunnelMetrics());
        try {
            return new Service(tunnels, SdkMetaTableClient.connect(endpoint, metaTable), clock);
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

    @Override
    public void close() {
        try {
            tunnels.close();
        } finally {
            metaClient.close();
        }
    }
}
