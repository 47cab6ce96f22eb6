package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The core's fakes for Flink tests, found by name so that the serializable factories a source
 * carries reach the test's fake (the factory travels with the source; the fake stays in the JVM):
 * every enumerator and reader a test opens shares it, and closing one keeps its state.
 */
public final class FakeServices {

    public static final String TABLE = "orders";
    public static final String TUNNEL = "orders-tunnel";

    private static final Map<String, Object> FAKES = new ConcurrentHashMap<>();

    private FakeServices() {}

    /** A fake of tunnel {@link #TUNNEL} on table {@link #TABLE}. */
    public static FakeTunnelService ordersTunnel(String tunnelId, TunnelType type) {
        return new FakeTunnelService(TABLE, TUNNEL, tunnelId, type);
    }

    /** A factory whose proxies are {@code fake}. */
    public static TunnelProxyFactory tunnelProxies(String name, FakeTunnelService fake) {
        String key = "tunnel " + name;
        FAKES.put(key, fake);
        return config -> (TunnelProxy) FAKES.get(key);
    }

    /** A factory whose clients are {@code table}. */
    public static MetaTableClientFactory metaTables(String name, InMemoryMetaTableClient table) {
        String key = "meta " + name;
        FAKES.put(key, table);
        return config -> (MetaTableClient) FAKES.get(key);
    }
}
